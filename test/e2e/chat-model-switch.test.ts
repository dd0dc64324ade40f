/**
 * A Chat Completions client that switches models mid-session (opencode, LibreChat, an AI SDK app
 * with a model picker): a tool call made on a Gemini model reached it under an id that carries
 * Gemini's thought signature (`gwpm_…`, ~150 characters), and the client sends that history on
 * to an OpenAI model. OpenAI caps a tool call's id at 40 characters and refuses the whole request
 * (`Invalid 'messages[1].tool_calls[0].id': string too long`); the strict Chat fake does too.
 * The gateway gives the Chat upstream the call's own id back on the same-format passthrough. A
 * Responses client meets the same on an OpenAI Responses model (`call_id` at most 64 characters).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('a Chat client switching from a Gemini model to an OpenAI one', () => {
  const IMAGE_MODEL = 'gemini-3-pro-image-preview';
  let chat: StrictFake;
  let responses: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: 'ok' });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, finalText: 'ok' });
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: true, gemini3: false }, [IMAGE_MODEL]: { thinking: true, gemini3: true, image: true } }, pick: (names) => (names.includes('lookup') ? [{ name: 'lookup', args: { city: 'Paris' } }, { name: 'lookup', args: { city: 'Rome' } }] : undefined) });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash', IMAGE_MODEL] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await chat?.close();
    await responses?.close();
    await gemini?.close();
  });

  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

  it.each([false, true])('the Gemini tool calls, answered, go on to the OpenAI model (stream: %s)', async (stream) => {
    chat.requests.length = 0;
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris and Rome?' };
    const first = await openai.chat.completions.create({ model: 'google/gemini-2.5-flash', messages: [question], tools, reasoning_effort: 'low' });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(2);
    // The first call carries Gemini's signature in its id: far over OpenAI's 40 characters.
    expect(calls[0]!.id).toMatch(/^gwpm_/);
    expect(calls[0]!.id.length).toBeGreaterThan(40);
    const history: OpenAI.ChatCompletionMessageParam[] = [
      question,
      { role: 'assistant', content: null, tool_calls: calls },
      ...calls.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: '18°C' })),
    ];
    let text = '';
    if (stream) {
      for await (const chunk of await openai.chat.completions.create({ model: 'oc/gpt-4o-mini', messages: history, tools, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    } else {
      text = (await openai.chat.completions.create({ model: 'oc/gpt-4o-mini', messages: history, tools })).choices[0]!.message.content ?? '';
    }
    expect(chat.rejections).toEqual([]);
    expect(text).toBe('ok');
    // The calls and their answers still pair up, under ids OpenAI takes.
    const sent = chat.requests.at(-1)!.json as Json;
    const ids = sent.messages[1].tool_calls.map((call: Json) => call.id);
    expect(ids.every((id: string) => id.length <= 40)).toBe(true);
    expect(sent.messages.slice(2).map((m: Json) => m.tool_call_id)).toEqual(ids);
    expect(new Set(ids).size).toBe(2);
  });

  it('a Responses client: the Gemini calls, answered, go on to an OpenAI Responses model', async () => {
    responses.requests.length = 0;
    const responseTools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'lookup', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Paris and Rome?' };
    const first = await openai.responses.create({ model: 'google/gemini-2.5-flash', input: [question], tools: responseTools, store: false });
    const calls = first.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.call_id.length).toBeGreaterThan(64);
    const input: OpenAI.Responses.ResponseInput = [question, ...calls, ...calls.map((call) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: '18°C' }))];
    const next = await openai.responses.create({ model: 'or/gpt-5', input, tools: responseTools, store: false });
    expect(responses.rejections).toEqual([]);
    expect(next.output_text).toBe('ok');
    const sent = (responses.requests.at(-1)!.json as Json).input as Json[];
    const ids = sent.filter((item) => item.type === 'function_call').map((item) => item.call_id);
    expect(ids.every((id: string) => id.length <= 64)).toBe(true);
    expect(sent.filter((item) => item.type === 'function_call_output').map((item) => item.call_id)).toEqual(ids);
  });

  it("a Responses client: a Gemini 3 image model's picture, sent back for an edit, goes on to an OpenAI Responses model", async () => {
    responses.requests.length = 0;
    const first = await openai.responses.create({ model: `google/${IMAGE_MODEL}`, input: 'Draw a cat', store: false });
    const image = first.output.find((item) => item.type === 'image_generation_call')!;
    // Its id carries Gemini's thought signature: far over OpenAI's 64 characters for an item id.
    expect(image.id).toMatch(/^ig_gwpm_/);
    expect(image.id.length).toBeGreaterThan(64);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Draw a cat' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Now make it blue' }];
    const next = await openai.responses.create({ model: 'or/gpt-5', input, store: false });
    expect(responses.rejections).toEqual([]);
    expect(next.output_text).toBe('ok');
    const sent = ((responses.requests.at(-1)!.json as Json).input as Json[]).find((item) => item.type === 'image_generation_call')!;
    expect(sent.id).toMatch(/^ig_[0-9a-f]+$/);
    expect(sent.result).toBe((image as Json).result);
  });
});
