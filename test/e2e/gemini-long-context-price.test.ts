/**
 * The long-context price tier through the real CLI (issue 22 part 4): gemini-2.5-pro on the
 * `google` plugin (AI Studio) against the strict Gemini fake, whose usage says a prompt of
 * exactly 200,000 tokens and then 210,000 (cached included); the first is billed at the
 * catalog's base prices, the second at the tier above 200k for input, cached and output
 * tokens alike; `/v1/models` shows the tier.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, USAGE, type GeminiFake } from '../helpers/fake-gemini.ts';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'gemini-2.5-pro';
const CACHED = 20_000;

describe('long-context tier: gemini-2.5-pro above 200k input tokens', () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let apiKey: string;

  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  const usedCredits = () => creditsUsed(gw.url, apiKey);
  /** One chat whose upstream usage says `prompt` input tokens; the credits it was charged. */
  const charge = async (prompt: number): Promise<number> => {
    const before = await usedCredits();
    const reply = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `count me as ${prompt}` }] });
    expect(reply.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: USAGE.candidates + USAGE.thoughts, prompt_tokens_details: { cached_tokens: CACHED } });
    let spent = 0;
    await expect.poll(async () => (spent = (await usedCredits()) - before), { timeout: 5000 }).toBeGreaterThan(0);
    return spent;
  };

  beforeAll(async () => {
    const dir = tempDir();
    gemini = await startGeminiFake({
      models: { [MODEL]: { thinking: true, gemini3: false } },
      apiKey: 'goog-upstream-key',
      cachedTokens: CACHED,
      promptTokens: (body) => Number(/count me as (\d+)/.exec(JSON.stringify(body.contents))?.[1] ?? USAGE.prompt),
    });
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [MODEL] } },
      routing: { retry: { attempts: 1 } },
    });
    apiKey = await createFundedKey(configFile, dataDir, 'tier@example.com');
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  it('bills 200,000 input tokens at the base prices and 210,000 at the tier, every token kind', async () => {
    // (200,000 − 20,000) × 1.25 + 20,000 × 0.125 + (20 + 8) × 10 = 227,780 USD per million = 227.78 credits.
    expect(await charge(200_000)).toBeCloseTo(227.78, 6);
    // (210,000 − 20,000) × 2.5 + 20,000 × 0.25 + (20 + 8) × 15 = 480,420 USD per million = 480.42 credits.
    expect(await charge(210_000)).toBeCloseTo(480.42, 6);
  });

  it('shows the tier in the /v1/models pricing', async () => {
    const list = (await openai().models.list()).data as unknown as Array<{ id: string; pricing: Record<string, unknown> }>;
    const pro = list.find((m) => m.id.endsWith(MODEL));
    expect(pro?.pricing).toMatchObject({
      prompt: '0.00000125',
      completion: '0.00001',
      input_cache_read: '0.000000125',
      tiers: [{ above_input_tokens: 200_000, prompt: '0.0000025', completion: '0.000015', input_cache_read: '0.00000025' }],
    });
  });
});
