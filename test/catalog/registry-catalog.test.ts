import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/index.ts';

const log = { info: () => undefined, warn: () => undefined };

describe('the registry fills listed ids from the catalog', () => {
  let registry: ProviderRegistry;

  beforeAll(async () => {
    const config = parseConfig({
      providers: {
        oa: { plugin: 'openai', baseURL: 'http://127.0.0.1:9/v1', models: ['gpt-4o-mini', { id: 'whisper-1', type: 'audio' }, { id: 'dall-e-3', n: { min: 1, max: 2 } }, 'mystery'] },
        any: { plugin: 'openai', baseURL: 'http://127.0.0.1:9/v1', models: ['*'] },
        anyPlus: { plugin: 'openai', baseURL: 'http://127.0.0.1:9/v1', models: ['*', { id: 'my-gpt5-prod', baseModel: 'gpt-5' }] },
        an: { plugin: 'anthropic' },
        goog: { plugin: 'google', apiKey: 'k', baseURL: 'http://127.0.0.1:9', models: ['gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-3-pro-preview', 'gemini-3.1-flash-lite-preview', { id: 'gemini-2.5-pro', pricing: { input: 1, output: 2 } }] },
      },
    });
    registry = await ProviderRegistry.create(config, { configDir: process.cwd(), log });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('merges the catalog, the plugin table and the config entry', () => {
    expect(registry.get('oa/gpt-4o-mini')?.spec).toMatchObject({ type: 'chat', contextWindow: 128_000, pricing: { input: 0.15, output: 0.6 } });
    expect(registry.get('oa/whisper-1')?.spec).toMatchObject({ type: 'audio', capabilities: ['transcription', 'translation'], pricing: { audioMinute: 0.006 } });
    expect(registry.get('oa/dall-e-3')?.spec).toMatchObject({ n: { min: 1, max: 2 }, sizes: ['1024x1024', '1792x1024', '1024x1792'], pricing: { image: 0.04 } });
    expect(registry.get('oa/mystery')?.spec).toEqual({ id: 'mystery', type: 'chat', capabilities: ['streaming', 'function_calling'] });
  });

  it("describes a pinned id of a '*' provider from the catalog, once", () => {
    const first = registry.resolve('any/o3').candidates[0];
    expect(first.spec).toMatchObject({ type: 'chat', pricing: { input: 2, output: 8 } });
    expect(first.spec.capabilities).toContain('thinking');
    expect(registry.resolve('any/o3').candidates[0]).toBe(first);
    expect(registry.resolve('any/whatever').candidates[0].spec.pricing).toBeUndefined();
  });

  it("a '*' provider's id listed beside '*' carries its baseModel (gpt-5's facts and prices); other ids stay wildcards", () => {
    const listed = registry.resolve('anyPlus/my-gpt5-prod').candidates[0];
    expect(listed.baseModel).toBe('gpt-5');
    expect(listed.upstreamId).toBe('my-gpt5-prod');
    expect(listed.spec).toMatchObject({ id: 'my-gpt5-prod', pricing: registry.resolve('any/gpt-5').candidates[0].spec.pricing });
    expect(listed.spec.capabilities).toContain('thinking');
    expect(registry.resolve('anyPlus/o3').candidates[0].spec).toMatchObject({ pricing: { input: 2, output: 8 } });
  });

  it('prices the anthropic defaults from the catalog, cache reads and writes included', () => {
    expect(registry.get('an/claude-sonnet-4-5')?.spec).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      capabilities: expect.arrayContaining(['thinking', 'documents']),
    });
  });

  it("prices Gemini's Google Search grounding from Google's page, beside genai-prices' token prices: per grounded prompt on 2.x, per query on 3", () => {
    expect(registry.get('goog/gemini-2.5-flash')?.spec.pricing).toMatchObject({ input: 0.3, output: 2.5, webSearch: 0.035 });
    expect(registry.get('goog/gemini-2.0-flash')?.spec.pricing).toMatchObject({ webSearch: 0.035 });
    expect(registry.get('goog/gemini-3-pro-preview')?.spec.pricing).toMatchObject({ input: 2, webSearch: 0.014 });
    expect(registry.get('goog/gemini-3.1-flash-lite-preview')?.spec.pricing).toMatchObject({ webSearch: 0.014 });
    // A config pricing replaces the known one whole: no search price unless it says one.
    expect(registry.get('goog/gemini-2.5-pro')?.spec.pricing).toEqual({ input: 1, output: 2 });
  });
});
