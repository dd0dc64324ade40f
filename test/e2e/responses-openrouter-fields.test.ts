/**
 * OpenRouter's own request fields on its Responses API (`provider`, `plugins`, `transforms`,
 * `route`, `usage`, and its `reasoning` keys `max_tokens`, `enabled`, `exclude` beside OpenAI's
 * `effort` and `summary`), sent by apps written for OpenRouter with the official openai SDK, on a
 * same-format Responses passthrough: an upstream that is not OpenRouter (a strict fake that refuses
 * unknown parameters, as OpenAI does) gets them taken out and `reasoning` as OpenAI's (effort fitted
 * to the model, summary kept); an OpenRouter upstream (`openRouterFields: 'forward'`) gets them as
 * written. Before, every upstream got them as written and OpenAI answered 400. Real CLI, official
 * openai SDK, fake upstreams.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../helpers/fake-upstream.ts';
import { OPENROUTER_FIELDS as OPENROUTER, startOpenRouterFieldsGateway, type OpenRouterFieldsGateway } from '../helpers/openrouter-fields.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe("OpenRouter's own fields on a Responses passthrough", () => {
  let up: OpenRouterFieldsGateway;
  let openai: StrictFake;
  let openrouter: FakeUpstream;
  let claude: StrictFake;
  let client: OpenAI;

  beforeAll(async () => {
    up = await startOpenRouterFieldsGateway('responses', { claude: true });
    ({ openai, openrouter, client } = up);
    claude = up.claude!;
  }, 60_000);
  afterAll(() => up?.close());

  const last = (fake: FakeUpstream) => up.last(fake);

  it("to OpenAI: the routing fields and usage are taken out and named in X-Gateway-Adapted; OpenRouter's reasoning becomes OpenAI's", async () => {
    const { data, response } = await client.responses
      .create({ model: 'oai/gpt-5', input: 'hello', ...OPENROUTER, reasoning: { effort: 'high', exclude: false, summary: 'auto' } } as never)
      .withResponse();
    expect(openai.rejections).toEqual([]);
    expect((data as OpenAI.Responses.Response).output_text).toBe('Done: the file is written.');
    const sent = last(openai);
    for (const field of ['provider', 'plugins', 'transforms', 'route', 'usage']) expect(sent).not.toHaveProperty(field);
    expect(sent.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    const adapted = response.headers.get('x-gateway-adapted') ?? '';
    for (const said of ['provider=removed', 'plugins=removed', 'transforms=removed', 'route=removed', 'reasoning=reasoning.effort(high)']) expect(adapted).toContain(said);
  });

  it('to OpenAI, streamed: a max_tokens budget becomes the nearest effort; enabled false the least', async () => {
    const stream = await client.responses.create({ model: 'oai/gpt-5', input: 'hello', stream: true, usage: { include: true }, reasoning: { max_tokens: 4000 } } as never);
    let usage: unknown;
    for await (const event of stream as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) if (event.type === 'response.completed') usage = event.response.usage;
    expect(openai.rejections).toEqual([]);
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(last(openai)).not.toHaveProperty('usage');
    expect(last(openai).reasoning).toEqual({ effort: 'high' });
    await client.responses.create({ model: 'oai/gpt-5', input: 'hello', reasoning: { enabled: false } } as never);
    expect(openai.rejections).toEqual([]);
    expect(last(openai).reasoning).toEqual({ effort: 'minimal' });
  });

  it("to a model that does not reason: OpenRouter's reasoning is left out, not refused; OpenAI's own reasoning goes as written", async () => {
    const { response } = await client.responses.create({ model: 'oai/gpt-4.1', input: 'hello', reasoning: { enabled: true } } as never).withResponse();
    expect(openai.rejections).toEqual([]);
    expect(last(openai)).not.toHaveProperty('reasoning');
    expect(response.headers.get('x-gateway-adapted')).toContain('reasoning=removed');
    await client.responses.create({ model: 'oai/gpt-5', input: 'hello', reasoning: { effort: 'low', summary: 'auto' } });
    expect(openai.rejections).toEqual([]);
    expect(last(openai).reasoning).toEqual({ effort: 'low', summary: 'auto' });
  });

  it('a bad reasoning is the 422 naming reasoning.max_tokens, before any upstream call', async () => {
    const before = openai.requests.length;
    const error = await client.responses.create({ model: 'oai/gpt-5', input: 'hello', reasoning: { max_tokens: -5 } } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).toContain('reasoning.max_tokens');
    expect(openai.requests.length).toBe(before);
  });

  it("converted to Claude: OpenRouter's max_tokens is the thinking budget, enabled false turns thinking off", async () => {
    const ask = (reasoning: Json) => client.responses.create({ model: 'ant/claude-sonnet-4-5', max_output_tokens: 8000, input: 'think, then say hi', reasoning } as never);
    await ask({ max_tokens: 3000 });
    expect(claude.rejections).toEqual([]);
    expect((claude.requests.at(-1)!.json as Json).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    await ask({ enabled: false, max_tokens: 3000 });
    expect(claude.rejections).toEqual([]);
    expect((claude.requests.at(-1)!.json as Json).thinking?.type ?? 'disabled').toBe('disabled');
  });

  it('to OpenRouter: every field goes as written, streamed or not', async () => {
    const { response } = await client.responses
      .create({ model: 'orr/anthropic/claude-sonnet-4.5', input: 'hello', ...OPENROUTER, reasoning: { max_tokens: 2000 } } as never)
      .withResponse();
    expect(last(openrouter)).toMatchObject({ ...OPENROUTER, reasoning: { max_tokens: 2000 } });
    expect(response.headers.get('x-gateway-adapted') ?? '').not.toContain('removed');
    const stream = await client.responses.create({ model: 'orr/anthropic/claude-sonnet-4.5', input: 'hello', stream: true, ...OPENROUTER, reasoning: { enabled: true } } as never);
    for await (const _event of stream as unknown as AsyncIterable<unknown>) void _event;
    expect(last(openrouter)).toMatchObject({ ...OPENROUTER, reasoning: { enabled: true } });
  });
});
