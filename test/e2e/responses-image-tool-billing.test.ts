/**
 * OpenAI's hosted image tool bills its own tokens apart from the model's: a response that made an
 * image carries `tool_usage.image_gen` (the image model's input and output tokens) beside `usage`,
 * priced at the image model's prices (the tool's `model`, default gpt-image-1: $5 / $40 per
 * million tokens in the bundled catalog). The gateway charges them on every route that reaches
 * the tool: a Responses passthrough and a Chat or Gemini client converted onto a Responses
 * upstream (3ca9658), whole and streamed; the ledger line counts the image in `media.images`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { IMAGE_TOOL_USAGE } from '../helpers/strict-fake-replies.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

/** Credits (1 credit = $0.001) of the tool's tokens at an image model's USD-per-million prices. */
const imageCredits = (input: number, output: number) => ((IMAGE_TOOL_USAGE.input_tokens * input + IMAGE_TOOL_USAGE.output_tokens * output) / 1_000_000) * 1000;
const GPT_IMAGE_1 = imageCredits(5, 40);
const GPT_IMAGE_1_MINI = imageCredits(2, 8);

describe("OpenAI's image tool is charged at the image model's prices", () => {
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let dataDir: string;
  let apiKey: string;
  /** A key of an account with 20 credits: enough for a text answer and one low-quality image, not for an image at `auto`. */
  let poorKey: string;
  /** A key of an account with 20 credits and no spend limit of the key's own: only the balance check refuses. */
  let poorUnlimitedKey: string;

  /** One request, its answer read to the end; the credits it was charged once settled. */
  const charge = async (route: string, body: Record<string, unknown>): Promise<number> => {
    const before = await creditsUsed(gw.url, apiKey);
    const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'x-goog-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(responses.rejections).toEqual([]);
    let spent = 0;
    await expect.poll(async () => (spent = (await creditsUsed(gw.url, apiKey)) - before), { timeout: 5000 }).toBeGreaterThan(0);
    return spent;
  };
  const chat = (stream: boolean) => ({ model: 'or/gpt-5', messages: [{ role: 'user', content: 'Draw a cat' }], modalities: ['image', 'text'], stream });
  const passthrough = (stream: boolean, tool: Record<string, unknown> = {}) => ({ model: 'or/gpt-5', input: 'Draw a cat', tools: [{ type: 'image_generation', ...tool }], stream });

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, finalText: 'Here is your cat.' });
    const dir = tempDir('gw-image-tool-');
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] } }, routing: { retry: { attempts: 1 } } });
    apiKey = await createFundedKey(configFile, dataDir, 'image-tool@example.com');
    poorKey = await createFundedKey(configFile, dataDir, 'image-tool-poor@example.com', 10_000, 20);
    poorUnlimitedKey = await createFundedKey(configFile, dataDir, 'image-tool-unlimited@example.com', null, 20);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
  });

  it('the tokens plus the image on every route, passthrough and converted, whole and streamed', async () => {
    // The same usage without an image: the model's tokens alone.
    const tokens = await charge('/v1/responses', { model: 'or/gpt-5', input: 'Say hi' });
    // Before: the image tool's tokens were not charged on any route.
    expect(await charge('/v1/responses', passthrough(false))).toBeCloseTo(tokens + GPT_IMAGE_1, 6);
    expect(await charge('/v1/responses', passthrough(true))).toBeCloseTo(tokens + GPT_IMAGE_1, 6);
    expect(await charge('/v1/chat/completions', chat(false))).toBeCloseTo(tokens + GPT_IMAGE_1, 6);
    expect(await charge('/v1/chat/completions', chat(true))).toBeCloseTo(tokens + GPT_IMAGE_1, 6);
    expect(await charge('/v1beta/models/or/gpt-5:generateContent', { contents: [{ role: 'user', parts: [{ text: 'Draw a cat' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } })).toBeCloseTo(tokens + GPT_IMAGE_1, 6);
    // The tool's own model sets the price.
    expect(await charge('/v1/responses', passthrough(false, { model: 'gpt-image-1-mini' }))).toBeCloseTo(tokens + GPT_IMAGE_1_MINI, 6);
  });

  it('the ledger lines count the image', () => {
    const ledger = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { media?: { images?: number } });
    expect(ledger.map((line) => line.media?.images ?? 0)).toEqual([0, 1, 1, 1, 1, 1, 1]);
  });

  /** A short Responses request with the image tool (`tool`'s fields added) on `key`. */
  const askImage = (key: string, tool: Record<string, unknown>) =>
    fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'or/gpt-5', input: 'Draw a cat', max_output_tokens: 100, tools: [{ type: 'image_generation', ...tool }] }),
    });

  // The hold covers the images the tool may make (docs/billing.md): at auto quality and size the
  // dearest (6,240 tokens at $40 per million, ~250 credits), at low quality 1024×1024 272 tokens (~11).
  it('an account that can pay for the text but not the image is refused before the upstream is called', async () => {
    const ask = (tool: Record<string, unknown>) => askImage(poorKey, tool);
    const calls = responses.requests.length;
    const refused = await ask({});
    const body = (await refused.json()) as { error: { code: string } };
    // Before: 200, the image charged past what the hold covered.
    expect(refused.status, JSON.stringify(body)).toBe(402);
    expect(body.error.code).toBe('insufficient_balance');
    expect(responses.requests.length).toBe(calls);
    // Streamed previews cost output tokens too: 3 partial images (300 tokens more, ~12 credits) do not fit.
    const previews = await ask({ quality: 'low', size: '1024x1024', partial_images: 3 });
    expect(previews.status, await previews.text()).toBe(402);
    // Images a Chat or Gemini client asks of a GPT model on a Responses upstream come from the same tool, at auto.
    const viaChat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${poorKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...chat(false), max_tokens: 100 }) });
    expect(viaChat.status, await viaChat.text()).toBe(402);
    const viaGemini = await fetch(`${gw.url}/v1beta/models/or/gpt-5:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': poorKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Draw a cat' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'], maxOutputTokens: 100 } }),
    });
    const geminiText = await viaGemini.text();
    expect(viaGemini.status, geminiText).toBe(402);
    expect(geminiText).toContain('"reason":"insufficient_balance"');
    expect(responses.requests.length).toBe(calls);
    // A low-quality square image fits: the hold follows the tool's quality and size.
    const cheap = await ask({ quality: 'low', size: '1024x1024' });
    expect(cheap.status, await cheap.text()).toBe(200);
  });

  it('a quality or count the price table does not know is held at its dearest, and leaves the balance check whole', async () => {
    const ask = (tool: Record<string, unknown>) => askImage(poorUnlimitedKey, tool);
    const calls = responses.requests.length;
    // Before: 'constructor' read Object.prototype's function out of the table, the hold was NaN,
    // which passed the balance check and made the account's held credits NaN: from then on no
    // request of that account was refused for its balance (an auto image answered 200).
    for (const tool of [{ quality: 'constructor' }, { quality: '__proto__' }, { quality: 'toString', partial_images: 1e308 }]) {
      const res = await ask(tool);
      expect(res.status, `${JSON.stringify(tool)}: ${await res.text()}`).toBe(402);
    }
    const auto = await ask({});
    expect(auto.status, await auto.text()).toBe(402);
    expect(responses.requests.length).toBe(calls);
  });
});
