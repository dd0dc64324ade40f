import { describe, expect, it } from 'vitest';
import { applyConfigEntry, mapModelsDevEntry, mapPackagePrices, mergeSpecLayers, ModelIdIndex, openCatalogProvider, stripDateSuffix } from '../../src/catalog/index.ts';

describe('the bundled catalog', () => {
  it('maps genai-prices keys to USD per million tokens, per minute, per web search, base price and long-context tiers', () => {
    expect(mapPackagePrices({ input_mtok: 0.15, cache_read_mtok: 0.075, output_mtok: 0.6, web_searches_kcount: 10 })).toEqual({ input: 0.15, output: 0.6, cacheRead: 0.075, webSearch: 0.01 });
    expect(mapPackagePrices({ input_mtok: { base: 3, tiers: [{ start: 200_000, price: 6 }] }, cache_write_mtok: { base: 3.75, tiers: [] } })).toEqual({
      input: 3,
      cacheWrite: 3.75,
      tiers: [{ aboveInputTokens: 200_000, input: 6 }],
    });
    expect(mapPackagePrices({ audio_hours: 0.36 })).toEqual({ audioMinute: 0.006 });
    expect(mapPackagePrices({ web_searches_kcount: 10 })).toEqual({ webSearch: 0.01 });
  });

  it('maps a models.dev entry to capabilities, modalities and limits', () => {
    const spec = mapModelsDevEntry({
      name: 'X', tool_call: true, reasoning: true, modalities: { input: ['text', 'image', 'pdf'], output: ['text'] },
      limit: { context: 200_000, output: 64_000 }, cost: { input: 1, output: 2, cache_read: 0.1 },
    });
    expect(spec).toEqual({
      type: 'chat', displayName: 'X', capabilities: ['streaming', 'function_calling', 'thinking', 'vision', 'documents'],
      modalities: { input: ['text', 'image', 'file'], output: ['text'] }, contextWindow: 200_000, maxOutputTokens: 64_000,
      pricing: { input: 1, output: 2, cacheRead: 0.1 },
    });
    expect(mapModelsDevEntry({ tool_call: false }).capabilities).toEqual(['streaming']);
  });

  it('matches dated and undated ids both ways, exact first', () => {
    expect(stripDateSuffix('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(stripDateSuffix('claude-opus-4-1-20250805')).toBe('claude-opus-4-1');
    expect(stripDateSuffix('o3')).toBe('o3');
    const index = new ModelIdIndex([['claude-opus-4-1-20250805', 'dated'], ['gpt-4o', 'plain'], ['gpt-4o-2024-05-13', 'old']]);
    expect(index.get('claude-opus-4-1')).toBe('dated');
    expect(index.get('gpt-4o')).toBe('plain');
    expect(index.get('gpt-4o-2024-05-13')).toBe('old');
    expect(index.get('gpt-4o-2024-11-20')).toBe('plain');
    expect(index.get('gpt-5')).toBeUndefined();
  });

  it('layers specs: later fields win, prices merge per field; the config pricing replaces the whole', () => {
    const known = mergeSpecLayers('m', [{ pricing: { input: 1, output: 2 }, contextWindow: 10 }, { pricing: { image: 0.5 }, type: 'image_generation' }]);
    expect(known).toEqual({ id: 'm', pricing: { input: 1, output: 2, image: 0.5 }, contextWindow: 10, type: 'image_generation' });
    expect(applyConfigEntry(known, { id: 'm', pricing: { input: 9 }, sizes: ['1x1'] })).toEqual({ id: 'm', pricing: { input: 9 }, contextWindow: 10, type: 'image_generation', sizes: ['1x1'] });
    expect(applyConfigEntry(known, { id: 'm', contextWindow: 20 }).pricing).toEqual({ input: 1, output: 2, image: 0.5 });
  });

  it('knows OpenAI and Anthropic models offline; a known base URL picks its provider', async () => {
    const openai = await openCatalogProvider('openai', 'http://127.0.0.1:1/v1');
    expect(openai.id).toBe('openai');
    expect(openai.find('gpt-4o-mini')).toMatchObject({ type: 'chat', contextWindow: 128_000, pricing: { input: 0.15, output: 0.6, cacheRead: 0.075 } });
    expect(openai.find('gpt-4o-mini')?.capabilities).toContain('vision');
    expect(openai.find('o3')?.capabilities).toContain('thinking');
    expect(openai.find('not-a-model')).toBeUndefined();
    const anthropic = await openCatalogProvider('anthropic');
    expect(anthropic.find('claude-sonnet-4-5')?.pricing).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect((await openCatalogProvider('openai', 'https://api.groq.com/openai/v1')).id).toBe('groq');
    expect(await openCatalogProvider('openai')).toBe(openai);
  });
});
