/**
 * A streamed answer to a conversation that is too large to keep. Before, the turn was silently not
 * added: the client saw a completed answer, and the conversation went on without it (its next
 * turn's model never saw this one), while the same answer unstreamed was added. Now a turn whose
 * history and answer together pass the stored-record bound is added as the unstreamed one is (the
 * next turn then says the conversation is too large), and an answer alone past the bound ends with
 * OpenAI's `error` / `response.failed` in place of its completion, the conversation unchanged.
 * Real CLI, official openai SDK, a fake Chat upstream the gateway converts to.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

/** server.bodyLimits.inference: a conversation holds at most this many bytes, a stored record as many. */
const LIMIT = 40_000;

describe('a streamed answer too large for its conversation', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const body = request.json as Json;
      const last = JSON.stringify(body.messages.at(-1));
      const size = last.includes('huge') ? 50_000 : last.includes('long') ? 15_000 : 10;
      const piece = 'x'.repeat(1_000);
      const text = piece.repeat(Math.floor(size / 1_000)) + 'y'.repeat(size % 1_000);
      const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
      if (!body.stream) return { json: { id: 'c', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage } };
      const chunks: Json[] = [];
      for (let at = 0; at < text.length; at += 1_000) chunks.push({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: text.slice(at, at + 1_000) }, finish_reason: null }] });
      chunks.push({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      chunks.push({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage });
      return { headers: { 'content-type': 'text/event-stream' }, sse: chatSse(chunks) };
    });
    gw = await spawnGateway({
      config: {
        server: { bodyLimits: { inference: LIMIT } },
        providers: { oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const streamTypes = async (conversation: string, input: string): Promise<{ types: string[]; text: string; failed?: Json }> => {
    const types: string[] = [];
    let text = '';
    let failed: Json | undefined;
    try {
      const stream = await client.responses.create({ model: 'oc/gpt-4o-mini', input, conversation, stream: true });
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.failed') failed = event.response as never;
      }
    } catch (error) {
      types.push(`thrown: ${(error as Error).message}`);
    }
    return { types, text, failed };
  };

  it('history and answer past the bound: the streamed turn is added, as the unstreamed one is; the next turn says the conversation is too large', async () => {
    const history = Array.from({ length: 3 }, (_, i) => ({ type: 'message' as const, role: 'user' as const, content: `${i} ${'h'.repeat(9_000)}` }));
    for (const stream of [false, true]) {
      const conversation = await client.conversations.create({ items: history });
      if (stream) {
        const { types, text } = await streamTypes(conversation.id, 'a long answer please');
        expect(types).toContain('response.completed');
        expect(text.length).toBe(15_000);
      } else {
        expect((await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'a long answer please', conversation: conversation.id })).output_text.length).toBe(15_000);
      }
      const items = (await client.conversations.items.list(conversation.id, { order: 'asc', limit: 100 })).data as Json[];
      expect(items.map((item) => item.role), `stream: ${stream}`).toEqual(['user', 'user', 'user', 'user', 'assistant']);
      const next = await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'and then?', conversation: conversation.id }).catch((e: unknown) => e);
      expect(next).toBeInstanceOf(OpenAI.APIError);
      expect((next as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
      expect((next as Error).message).toContain(conversation.id);
    }
  });

  it('an answer alone past the bound: relayed whole, then an error in place of its completion; the conversation is unchanged', async () => {
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'hello' }] });
    const { types, text, failed } = await streamTypes(conversation.id, 'a huge answer please');
    expect(text.length).toBe(50_000);
    expect(types).not.toContain('response.completed');
    // The openai SDK raises OpenAI's `error` event with its message.
    expect(types.at(-1)).toContain(`thrown: The answer is too large to add to conversation '${conversation.id}'`);
    expect(failed).toBeUndefined();
    const items = (await client.conversations.items.list(conversation.id, { order: 'asc' })).data as Json[];
    expect(items.map((item) => item.role)).toEqual(['user']);
    // The conversation goes on.
    expect((await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'short', conversation: conversation.id })).output_text.length).toBe(10);
  });
});
