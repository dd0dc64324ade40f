/**
 * A conversation at its bounds: 10,000 items, or `server.bodyLimits.inference` bytes of them. A
 * response naming one full by its items was refused with the words and `param` of `items.create`
 * ("cannot take these items", `param: "items"`), a field the Responses request does not have; now
 * it names `conversation` and says the conversation is full. Past its bytes, a turn is the 413 the
 * docs name. Real CLI, official openai SDK, the offline mock.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type ApiError = InstanceType<typeof OpenAI.APIError>;

describe('a full conversation', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { server: { bodyLimits: { inference: 2_000_000 } }, providers: { mock: { plugin: 'mock' } } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('of 10,000 items: items.create is the 400 naming items; a response naming it the 400 naming conversation, saying it is full', { timeout: 120_000 }, async () => {
    const conversation = await client.conversations.create({});
    const calls = Array.from({ length: 500 }, () => Array.from({ length: 20 }, () => ({ type: 'message' as const, role: 'user' as const, content: 'x' })));
    for (let i = 0; i < calls.length; i += 10) {
      await Promise.all(calls.slice(i, i + 10).map((items) => client.conversations.items.create(conversation.id, { items })));
    }
    const more = (await client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as ApiError;
    expect(more.status).toBe(400);
    expect(more.param).toBe('items');

    const turn = (await client.responses.create({ model: 'mock/echo', input: 'hi', conversation: conversation.id }).catch((e: unknown) => e)) as ApiError;
    expect(turn).toBeInstanceOf(OpenAI.APIError);
    expect(turn.status).toBe(400);
    expect(turn.param).toBe('conversation');
    expect(turn.message).toContain(`Conversation '${conversation.id}' is full: it holds 10000 items (a conversation holds at most 10000), so it takes no further turn`);
    expect(turn.message).not.toContain('these items');
  });

  it('past its bytes: a response naming it is the 413 request_too_large naming the conversation, param conversation', async () => {
    const conversation = await client.conversations.create({});
    // Three 600 kB items: 1.8 MB of a 2 MB bound; the turn's echo takes it past.
    for (let i = 0; i < 3; i++) await client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'x'.repeat(600_000) }] });
    await client.responses.create({ model: 'mock/echo', input: 'y'.repeat(150_000), conversation: conversation.id });
    const turn = (await client.responses.create({ model: 'mock/echo', input: 'hi', conversation: conversation.id }).catch((e: unknown) => e)) as ApiError;
    expect(turn.status).toBe(413);
    expect(turn.code).toBe('request_too_large');
    expect(turn.message).toContain(`conversation '${conversation.id}'`);
    expect(turn.param).toBe('conversation'); // what to change, as the 409 and the full-by-items 400 say (before: null)
  });
});
