/**
 * Gemini's thoughts to a Chat client: OpenRouter's `reasoning_details` name where reasoning came
 * from in `format` (`google-gemini-v1` for Gemini's, as OpenRouter writes them), in the JSON answer
 * and in the stream; and a signed thought the client sends back reaches Gemini with its
 * `thoughtSignature` byte-exact (the strict fake refuses a signature it never issued).
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const MODEL = 'gemini-3-pro-preview';
const WEATHER = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

describe("Gemini's thoughts in a Chat client's reasoning_details", () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let apiKey: string;
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER } }];

  beforeAll(async () => {
    const dir = tempDir();
    gemini = await startGeminiFake({
      models: { [MODEL]: { thinking: true, gemini3: true } },
      apiKey: 'goog-upstream-key',
      pick: (names) => (names.includes('get_weather') ? [{ name: 'get_weather', args: { city: 'Paris' } }] : undefined),
      finalText: 'Paris is sunny.',
      signedThoughts: true,
    });
    const configFile = writeConfig(dir, {
      providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [MODEL] } },
      routing: { retry: { attempts: 1 } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'thoughts@example.com', 1000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });
  beforeEach(() => {
    gemini.requests.length = 0;
  });

  it('JSON: the thought is format google-gemini-v1, and its signature goes back to Gemini byte-exact on the next turn', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const reply = await openai().chat.completions.create({ model: MODEL, messages, tools, reasoning_effort: 'high' });
    const message = reply.choices[0].message as Json;
    expect(message.reasoning_details.length).toBeGreaterThan(0);
    expect(message.reasoning_details.map((d: Json) => d.format)).toEqual(message.reasoning_details.map(() => 'google-gemini-v1'));
    messages.push(message as OpenAI.ChatCompletionMessageParam);
    for (const call of reply.choices[0].message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny' });
    const last = await openai().chat.completions.create({ model: MODEL, messages, tools, reasoning_effort: 'high' });
    expect(last.choices[0].message.content).toBe('Paris is sunny.');
    expect(gemini.rejections).toEqual([]);
    const model = (gemini.requests[1].json as Json).contents.find((c: Json) => c.role === 'model');
    const thought = model.parts.find((p: Json) => p.thought === true);
    expect(thought).toMatchObject({ text: 'Thinking about the task.', thought: true });
    expect(gemini.issued.has(thought.thoughtSignature)).toBe(true);
  });

  it('stream: every reasoning detail is format google-gemini-v1', async () => {
    const stream = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, reasoning_effort: 'high', stream: true });
    const formats = new Set<string>();
    for await (const chunk of stream) for (const detail of ((chunk.choices[0]?.delta as Json | undefined)?.reasoning_details ?? []) as Json[]) formats.add(detail.format);
    expect([...formats]).toEqual(['google-gemini-v1']);
  });
});
