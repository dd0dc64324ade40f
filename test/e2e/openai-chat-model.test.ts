/**
 * gpt-5-chat-latest is OpenAI's non-reasoning chat model (the GPT-5 of ChatGPT): OpenAI refuses
 * `reasoning_effort` (Chat) and `reasoning.effort` (Responses) on it with a 400, and it takes
 * `temperature` and the `system` role as any chat model does. A Messages or Gemini client that
 * asks for thinking on it gets its answer without reasoning (`X-Gateway-Adapted:
 * reasoning=removed`), and its temperature and system text reach the model as written. The
 * strict fakes refuse reasoning parameters on a model without reasoning, as OpenAI does. Its
 * successors (gpt-5.1-chat-latest, …) reason, at `medium` only.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('gpt-5-chat-latest is not a reasoning model', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let google: GoogleGenAI;
  const MODELS = { 'gpt-5-chat-latest': { maxOutput: 16384, reasoning: false }, 'gpt-5': { maxOutput: 128000, reasoning: true }, 'gpt-5.2-chat-latest': { maxOutput: 16384, reasoning: true } };

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: MODELS, finalText: 'Hello there.' });
    responses = await startStrictFake({ format: 'responses', models: MODELS, finalText: 'Hello there.' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-5-chat-latest', 'gpt-5', 'gpt-5.2-chat-latest'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5-chat-latest', 'gpt-5'] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
    google = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await chat?.close();
    await responses?.close();
  });
  beforeEach(() => {
    for (const fake of [chat, responses]) {
      fake.requests.length = 0;
      fake.rejections.length = 0;
    }
  });

  it.each([
    ['chat', 'oc/gpt-5-chat-latest'],
    ['responses', 'or/gpt-5-chat-latest'],
  ] as const)('an Anthropic SDK client thinking on it (%s upstream): answered without reasoning, said in X-Gateway-Adapted', async (format, model) => {
    const fake = format === 'chat' ? chat : responses;
    const { data, response } = await anthropic.messages
      .create({ model, max_tokens: 4000, system: 'Be brief.', thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Say hi' }] })
      .withResponse();
    // Before: the gateway asked for reasoning_effort / reasoning.effort, and OpenAI (and the fake) answered 400.
    expect(fake.rejections).toEqual([]);
    expect(data.content).toEqual([{ type: 'text', text: 'Hello there.' }]);
    expect(response.headers.get('x-gateway-adapted')).toBe('reasoning=removed');
    const body = fake.requests[0].json as Json;
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.reasoning).toBeUndefined();
  });

  it('a Gemini client thinking on it: answered without reasoning; its temperature and system text go as a chat model takes them', async () => {
    const answer = await google.models.generateContent({
      model: 'oc/gpt-5-chat-latest',
      contents: 'Say hi',
      config: { systemInstruction: 'Be brief.', temperature: 0.3, thinkingConfig: { thinkingBudget: 1024 } },
    });
    expect(chat.rejections).toEqual([]);
    expect(answer.text).toBe('Hello there.');
    const body = chat.requests[0].json as Json;
    expect(body.reasoning_effort).toBeUndefined();
    // Before: dropped, and the system text sent as a developer message, as for the reasoning models.
    expect(body.temperature).toBe(0.3);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('gpt-5 on the same upstream still reasons: the effort goes, the temperature does not', async () => {
    await google.models.generateContent({ model: 'oc/gpt-5', contents: 'Say hi', config: { temperature: 0.3, thinkingConfig: { thinkingBudget: 1024 } } });
    expect(chat.rejections).toEqual([]);
    expect((chat.requests[0].json as Json).temperature).toBeUndefined();
    const { response } = await anthropic.messages
      .create({ model: 'oc/gpt-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Say hi' }] })
      .withResponse();
    expect(chat.rejections).toEqual([]);
    expect(response.headers.get('x-gateway-adapted')).toBeNull();
    expect((chat.requests[1].json as Json).reasoning_effort).toBe('medium');
  });

  it('gpt-5.2-chat-latest reasons at medium only: a stronger or weaker ask is fitted to it', async () => {
    // Before: high (a 4096-token budget) and none (Gemini's thinkingBudget 0), which OpenAI refuses: "Supported values are: 'medium'."
    await anthropic.messages.create({ model: 'oc/gpt-5.2-chat-latest', max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [{ role: 'user', content: 'Say hi' }] });
    await google.models.generateContent({ model: 'oc/gpt-5.2-chat-latest', contents: 'Say hi', config: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(chat.rejections).toEqual([]);
    expect(chat.requests.map((request) => (request.json as Json).reasoning_effort)).toEqual(['medium', 'medium']);
  });

  it.each([
    ['chat', 'oc/gpt-5'],
    ['responses', 'or/gpt-5'],
  ] as const)("a reasoning model's refused sampling is left out and said in X-Gateway-Adapted (%s upstream)", async (format, model) => {
    const fake = format === 'chat' ? chat : responses;
    const answer = await fetch(`${gw.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }], generationConfig: { temperature: 0.3, topP: 0.9 } }),
    });
    // Before on Responses: sent as written, and OpenAI answered "Unsupported value: 'temperature' does not support 0.3 with this model."
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(fake.rejections).toEqual([]);
    expect(answer.headers.get('x-gateway-adapted')).toBe('temperature=removed, top_p=removed');
    const body = fake.requests[0].json as Json;
    expect([body.temperature, body.top_p]).toEqual([undefined, undefined]);
  });

  it("a Messages or Gemini client's stop sequences are left out for a reasoning model on Chat and said in X-Gateway-Adapted", async () => {
    const { response } = await anthropic.messages
      .create({ model: 'oc/gpt-5', max_tokens: 4000, stop_sequences: ['\nObservation:'], messages: [{ role: 'user', content: 'Say hi' }] })
      .withResponse();
    const answer = await google.models.generateContent({ model: 'oc/gpt-5', contents: 'Say hi', config: { stopSequences: ['END'] } });
    // Before: sent as `stop`, and OpenAI (and the fake) answered 400 "Unsupported parameter: 'stop' is not supported with this model."
    expect(chat.rejections).toEqual([]);
    expect(answer.text).toBe('Hello there.');
    expect(response.headers.get('x-gateway-adapted')).toBe('stop=emulated');
    expect(answer.sdkHttpResponse?.headers?.['x-gateway-adapted']).toBe('stop=emulated');
    expect(chat.requests.map((request) => (request.json as Json).stop)).toEqual([undefined, undefined]);
  });

  it('on a Responses upstream, which has no stop sequences, any model: left out and said', async () => {
    const { response } = await anthropic.messages
      .create({ model: 'or/gpt-5-chat-latest', max_tokens: 4000, stop_sequences: ['END'], messages: [{ role: 'user', content: 'Say hi' }] })
      .withResponse();
    expect(responses.rejections).toEqual([]);
    // Before: left out without a word (no X-Gateway-Adapted), the answer free to run past END; now cut there by the gateway.
    expect(response.headers.get('x-gateway-adapted')).toBe('stop=emulated');
  });

  it('a chat model keeps its stop sequences', async () => {
    await anthropic.messages.create({ model: 'oc/gpt-5-chat-latest', max_tokens: 4000, stop_sequences: ['END'], messages: [{ role: 'user', content: 'Say hi' }] });
    expect(chat.rejections).toEqual([]);
    expect((chat.requests[0].json as Json).stop).toEqual(['END']);
  });
});
