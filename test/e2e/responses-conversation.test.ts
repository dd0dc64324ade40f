/**
 * Server-side state of OpenAI's that the gateway does not have. A prompt template goes only to an
 * OpenAI Responses upstream (before: dropped on a converted route, the model answering without its
 * instructions; and a prompt-only body, which OpenAI takes, was a 400 for its missing input).
 * OpenAI's Conversations API is not served: a Responses request naming a `conversation` is the
 * 404 OpenAI answers for a conversation it does not have, on a converted route and on a
 * passthrough alike (nothing reaches an upstream), and `/v1/conversations` is a 404 that says what
 * to use instead. Before, a converted route ignored the conversation (the client's history was
 * silently dropped) and a passthrough sent it to OpenAI under the operator's key.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

describe("a Responses request naming an OpenAI conversation (the Conversations API is not served)", () => {
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    gw = await spawnGateway({ config: { providers: { or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] }, mock: { plugin: 'mock' } } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
  });

  const HINT = "this gateway does not serve OpenAI's Conversations API";

  it.each([
    ['a converted route', 'mock/echo'],
    ['a passthrough to a Responses upstream', 'or/gpt-5'],
  ])('on %s: 404 naming the conversation, whole and streamed, as an id or {id}; nothing goes upstream', async (_route, model) => {
    const before = responses.requests.length;
    for (const conversation of ['conv_abc123', { id: 'conv_abc123' }]) {
      for (const stream of [false, true]) {
        const error = await client.responses.create({ model, input: 'hi', conversation, stream } as never).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        const body = (error as InstanceType<typeof OpenAI.NotFoundError>).error as { message: string; param: string };
        expect(body.message).toContain("Conversation with id 'conv_abc123' found");
        expect(body.message).toContain(HINT);
        expect(body.param).toBe('conversation');
      }
    }
    expect(responses.requests.length).toBe(before);
  });

  it('the input token count refuses it alike; without a conversation the same request is answered', async () => {
    const count = await fetch(`${gw.url}/v1/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', input: 'hi', conversation: 'conv_abc123' }),
    });
    expect(count.status).toBe(404);
    expect((await client.responses.create({ model: 'mock/echo', input: 'hi' })).output_text).toBe('hi');
  });

  it('a prompt template (prompt.id) goes to an OpenAI Responses upstream, without input too; converted, it is a 422 naming it, not dropped', async () => {
    const prompt = { id: 'pmpt_abc123', variables: { city: 'Paris' } };
    const answer = await client.responses.create({ model: 'or/gpt-5', prompt });
    expect(answer.status).toBe('completed');
    expect(responses.rejections).toEqual([]);
    expect(responses.requests.at(-1)!.json).toMatchObject({ model: 'gpt-5', prompt });
    const before = responses.requests.length;
    const error = await client.responses.create({ model: 'mock/echo', prompt, input: 'hi' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as Error).message).toContain("Invalid parameter 'prompt': is a prompt template of an OpenAI organization");
    expect(responses.requests.length).toBe(before);
  });

  it('conversations.create and items.list are a 404 that says what to use instead', async () => {
    for (const call of [() => client.conversations.create({}), () => client.conversations.items.list('conv_abc123')]) {
      const error = await call().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as Error).message).toContain("does not serve OpenAI's Conversations API: chain turns with previous_response_id");
    }
  });
});
