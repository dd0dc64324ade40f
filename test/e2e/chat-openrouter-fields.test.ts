/**
 * OpenRouter's own Chat request fields (`provider`, `plugins`, `transforms`, `route`, `usage`,
 * its `reasoning` object), sent by apps written for OpenRouter with the official openai SDK, on a
 * same-format Chat passthrough: an upstream that is not OpenRouter (a strict fake that refuses
 * unknown parameters, as OpenAI does) gets them taken out, `reasoning` as `reasoning_effort` fitted
 * to the model, `usage: {include: true}` as the stream's usage chunk; an OpenRouter upstream
 * (`openRouterFields: 'forward'`) gets them as written. Before, every upstream got them as written
 * and OpenAI answered 400. Real CLI, official openai SDK, fake upstreams.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { OPENROUTER_FIELDS as OPENROUTER, startOpenRouterFieldsGateway, type OpenRouterFieldsGateway } from '../helpers/openrouter-fields.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';

type Json = Record<string, any>;

/** A Chat stream's deltas, its usage chunk and its text. */
async function readDeltas(stream: unknown): Promise<{ deltas: Json[]; usage: Json | undefined; text: string }> {
  const deltas: Json[] = [];
  let usage: Json | undefined;
  for await (const chunk of stream as AsyncIterable<OpenAI.ChatCompletionChunk>) {
    if (chunk.choices[0]) deltas.push(chunk.choices[0].delta as Json);
    if (chunk.usage) usage = chunk.usage as unknown as Json;
  }
  return { deltas, usage, text: deltas.map((d) => d.content ?? '').join('') };
}

describe("OpenRouter's own fields on a Chat passthrough", () => {
  let up: OpenRouterFieldsGateway;
  let openai: StrictFake;
  let openrouter: FakeUpstream;
  let client: OpenAI;

  beforeAll(async () => {
    up = await startOpenRouterFieldsGateway('chat');
    ({ openai, openrouter, client } = up);
  }, 60_000);
  afterAll(() => up?.close());

  const last = (fake: FakeUpstream) => up.last(fake);

  it('to OpenAI: the routing fields are taken out and named in X-Gateway-Adapted; reasoning.effort becomes reasoning_effort', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'oai/gpt-5', messages: [{ role: 'user', content: 'hello' }], ...OPENROUTER, reasoning: { effort: 'high', exclude: true } } as never)
      .withResponse();
    expect(openai.rejections).toEqual([]);
    expect(data.choices[0].message.content).toBe('Done: the file is written.');
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    const sent = last(openai);
    for (const field of ['provider', 'plugins', 'transforms', 'route', 'usage', 'reasoning']) expect(sent).not.toHaveProperty(field);
    expect(sent.reasoning_effort).toBe('high');
    const adapted = response.headers.get('x-gateway-adapted') ?? '';
    for (const said of ['provider=removed', 'plugins=removed', 'transforms=removed', 'route=removed', 'reasoning=reasoning_effort(high)']) expect(adapted).toContain(said);
  });

  it('to OpenAI, streamed: usage {include: true} gets the usage chunk; a max_tokens budget becomes the nearest effort', async () => {
    const stream = await client.chat.completions.create({ model: 'oai/gpt-5', messages: [{ role: 'user', content: 'hello' }], stream: true, usage: { include: true }, reasoning: { max_tokens: 4000 } } as never);
    let usage: unknown;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) if (chunk.usage) usage = chunk.usage;
    expect(openai.rejections).toEqual([]);
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(last(openai)).not.toHaveProperty('usage');
    expect(last(openai).reasoning_effort).toBe('high');
  });

  it("to a model that does not reason: reasoning is left out, not refused; the client's own reasoning_effort wins", async () => {
    const { response } = await client.chat.completions.create({ model: 'oai/gpt-4.1', messages: [{ role: 'user', content: 'hello' }], reasoning: { enabled: true } } as never).withResponse();
    expect(openai.rejections).toEqual([]);
    expect(last(openai)).not.toHaveProperty('reasoning');
    expect(last(openai)).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-gateway-adapted')).toContain('reasoning=removed');
    await client.chat.completions.create({ model: 'oai/gpt-5', messages: [{ role: 'user', content: 'hello' }], reasoning_effort: 'low', reasoning: { effort: 'high' } } as never);
    expect(openai.rejections).toEqual([]);
    expect(last(openai).reasoning_effort).toBe('low');
  });

  it('a bad reasoning is the 422 naming reasoning.effort, before any upstream call', async () => {
    const before = openai.requests.length;
    const error = await client.chat.completions.create({ model: 'oai/gpt-5', messages: [{ role: 'user', content: 'hello' }], reasoning: { effort: 'enormous' } } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).toContain('reasoning.effort');
    expect(openai.requests.length).toBe(before);
  });

  it('to OpenRouter: every field goes as written; a stream with usage {include: true} keeps its usage chunk', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'orr/anthropic/claude-sonnet-4.5', messages: [{ role: 'user', content: 'hello' }], ...OPENROUTER, reasoning: { max_tokens: 2000 } } as never)
      .withResponse();
    expect(last(openrouter)).toMatchObject({ ...OPENROUTER, reasoning: { max_tokens: 2000 } });
    expect(last(openrouter)).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-gateway-adapted') ?? '').not.toContain('removed');
    const stream = await client.chat.completions.create({ model: 'orr/anthropic/claude-sonnet-4.5', messages: [{ role: 'user', content: 'hello' }], stream: true, usage: { include: true } } as never);
    let usage: unknown;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ total_tokens: 12 });
    expect(last(openrouter).usage).toEqual({ include: true });
  });
});

/**
 * `reasoning: {exclude: true}` on a Chat request converted to another upstream format: the model
 * still reasons as asked, and the client gets none of it (no `reasoning_content`, no
 * `reasoning_details`, in the answer or the stream), as OpenRouter answers. Before, it was honoured
 * on the OpenRouter passthrough only: a converted answer carried the reasoning the model returned.
 */
describe("OpenRouter's reasoning.exclude on a converted Chat route", () => {
  let up: StrictUpstreams;
  let claude: StrictFake;
  let gemini: GeminiFake;
  let responses: StrictFake;
  let client: OpenAI;

  beforeAll(async () => {
    up = await startStrictUpstreams({ messages: {}, gemini: { models: { 'gemini-2.5-pro': { thinking: true, gemini3: false } } }, responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    ({ messages: claude, gemini, responses } = up as Required<StrictUpstreams>);
    client = new OpenAI({ baseURL: `${up.gateway.url}/v1`, apiKey: up.gateway.key, maxRetries: 0 });
  }, 60_000);
  afterAll(() => up?.close());

  const REASONING_KEYS = ['reasoning_content', 'reasoning_details', 'reasoning'];
  const ask = (model: string, reasoning: Json) => ({ model, max_tokens: 8000, messages: [{ role: 'user', content: 'think, then say hi' }], reasoning }) as never;
  /** What each upstream was asked: to reason, whatever the client then gets. */
  const thinkingAsked: Record<string, () => unknown> = {
    'ant/claude-up': () => (claude.requests.at(-1)!.json as Json).thinking?.type,
    'gg/gemini-2.5-pro': () => (gemini.requests.at(-1)!.json as Json).generationConfig?.thinkingConfig?.thinkingBudget > 0,
    'or/gpt-5': () => (responses.requests.at(-1)!.json as Json).reasoning?.effort,
  };
  const asked: Record<string, unknown> = { 'ant/claude-up': 'enabled', 'gg/gemini-2.5-pro': true, 'or/gpt-5': 'high' };
  const rejections = () => [claude, gemini, responses].flatMap((fake) => fake.rejections);

  for (const model of Object.keys(asked)) {
    it(`to ${model}: the answer carries the reasoning, and none of it with exclude; the upstream reasons either way`, async () => {
      const shown = await client.chat.completions.create(ask(model, { effort: 'high' }));
      const message = shown.choices[0].message as unknown as Json;
      expect(message.reasoning_details?.length).toBeGreaterThan(0); // the fake reasoned and the client sees it
      const hidden = await client.chat.completions.create(ask(model, { effort: 'high', exclude: true }));
      expect(thinkingAsked[model]()).toBe(asked[model]);
      const quiet = hidden.choices[0].message as unknown as Json;
      for (const key of REASONING_KEYS) expect(quiet).not.toHaveProperty(key);
      expect(quiet.content).toBe(message.content);
      expect(quiet.content).toMatch(/\S/);
      expect(rejections()).toEqual([]);
    });

    it(`to ${model}, streamed: no chunk carries reasoning with exclude; the text and the usage come whole`, async () => {
      const read = async (reasoning: Json) => {
        return readDeltas(await client.chat.completions.create({ ...(ask(model, reasoning) as object), stream: true, stream_options: { include_usage: true } } as never));
      };
      const shown = await read({ effort: 'high' });
      expect(shown.deltas.some((d) => d.reasoning_details !== undefined)).toBe(true);
      const hidden = await read({ effort: 'high', exclude: true });
      expect(thinkingAsked[model]()).toBe(asked[model]);
      expect(hidden.deltas.filter((d) => REASONING_KEYS.some((key) => key in d))).toEqual([]);
      expect(hidden.text).toBe(shown.text);
      expect(hidden.text).toMatch(/\S/);
      expect(hidden.usage?.completion_tokens).toBeGreaterThan(0);
      expect(rejections()).toEqual([]);
    });

    it(`to ${model}, streamed: OpenRouter's usage {include: true} gets the usage chunk, as stream_options.include_usage does`, async () => {
      const stream = await client.chat.completions.create({ model, max_tokens: 8000, messages: [{ role: 'user', content: 'say hi' }], stream: true, usage: { include: true } } as never);
      let usage: Json | undefined;
      for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) if (chunk.usage) usage = chunk.usage as unknown as Json;
      expect(usage?.completion_tokens).toBeGreaterThan(0);
      expect(usage?.prompt_tokens).toBeGreaterThan(0);
      expect(rejections()).toEqual([]);
    });
  }
});

/**
 * `reasoning: {exclude: true}` on a Chat passthrough to an upstream that is not OpenRouter (DeepSeek,
 * vLLM: OpenAI-compatible servers that answer their reasoning as `reasoning_content`): the
 * `reasoning` object is taken out (such an upstream does not know it), so nothing upstream keeps the
 * reasoning out, and the answer must. Before, the client got the upstream's `reasoning_content`
 * as written, whole and streamed, though it asked for none.
 */
describe("OpenRouter's reasoning.exclude on a Chat passthrough to an upstream that is not OpenRouter", () => {
  let deepseek: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    deepseek = await startFakeUpstream((request) => {
      const body = request.json as Json;
      if (body.reasoning !== undefined) return { status: 400, json: { error: { message: 'unknown field reasoning', type: 'invalid_request_error' } } };
      const usage = { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, completion_tokens_details: { reasoning_tokens: 5 } };
      const base = { id: 'ds-1', created: 1_700_000_000, model: body.model };
      if (!body.stream) {
        return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi there', reasoning_content: 'the hidden thoughts' }, finish_reason: 'stop' }], usage } };
      }
      const chunk = (delta: Json, finish: string | null = null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
      return {
        headers: { 'content-type': 'text/event-stream' },
        sse: chatSse([chunk({ role: 'assistant', content: null, reasoning_content: 'the hidden' }), chunk({ reasoning_content: ' thoughts' }), chunk({ content: 'hi' }), chunk({ content: ' there' }), chunk({}, 'stop'), { ...base, object: 'chat.completion.chunk', choices: [], usage }]),
      };
    });
    gw = await spawnGateway({
      config: {
        providers: { ds: { plugin: 'openai', baseURL: `${deepseek.url}/v1`, apiKey: 'x', models: [{ id: 'deepseek-reasoner', maxOutputTokens: 8000 }] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await deepseek?.close();
  });

  const REASONING_KEYS = ['reasoning_content', 'reasoning_details', 'reasoning'];
  const ask = (reasoning: Json, stream = false) => ({ model: 'ds/deepseek-reasoner', messages: [{ role: 'user', content: 'think, then say hi' }], reasoning, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) }) as never;

  it('whole: the reasoning is shown without exclude and left out with it; the usage counts it', async () => {
    const shown = (await client.chat.completions.create(ask({ effort: 'high' }))).choices[0].message as unknown as Json;
    expect(shown.reasoning_content).toBe('the hidden thoughts');
    const hidden = await client.chat.completions.create(ask({ effort: 'high', exclude: true }));
    const message = hidden.choices[0].message as unknown as Json;
    for (const key of REASONING_KEYS) expect(message).not.toHaveProperty(key);
    expect(message.content).toBe('hi there');
    expect(hidden.usage).toMatchObject({ completion_tokens: 7, completion_tokens_details: { reasoning_tokens: 5 } });
    expect((deepseek.requests.at(-1)!.json as Json).reasoning).toBeUndefined();
  });

  it('whole, with max_tokens over the model\'s maximum (the body is capped on the way): still no reasoning', async () => {
    const hidden = await client.chat.completions.create({ ...(ask({ effort: 'high', exclude: true }) as object), max_tokens: 100_000 } as never);
    const message = hidden.choices[0].message as unknown as Json;
    for (const key of REASONING_KEYS) expect(message).not.toHaveProperty(key);
    expect(message.content).toBe('hi there');
    expect((deepseek.requests.at(-1)!.json as Json).max_tokens).toBe(8000);
  });

  it('streamed: no chunk carries reasoning with exclude; the text and the usage come whole', async () => {
    const read = async (reasoning: Json) => {
      return readDeltas(await client.chat.completions.create(ask(reasoning, true)));
    };
    const shown = await read({ effort: 'high' });
    expect(shown.deltas.some((d) => d.reasoning_content !== undefined)).toBe(true);
    const hidden = await read({ effort: 'high', exclude: true });
    expect(hidden.deltas.filter((d) => REASONING_KEYS.some((key) => key in d))).toEqual([]);
    expect(hidden.text).toBe('hi there');
    expect(hidden.usage).toMatchObject({ completion_tokens: 7 });
  });
});
