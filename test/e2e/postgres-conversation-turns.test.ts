/**
 * One turn at a time holds across instances on one PostgreSQL. Before: the hold was each gateway
 * process's own, so a turn sent to instance B while A's turn on the same conversation was still
 * streaming ran too, each with the history it read, and both were added (interleaved). Now the
 * hold is a lease on the conversation's row: B answers the same 409 A would give, before any
 * upstream call, and once A's turn is added B's next turn runs on it. Two real CLI processes on one
 * database, the official openai SDK, a fake Chat upstream whose stream the test holds part-way.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, any>;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let upstream: FakeUpstream;
let a: SpawnedGateway;
let b: SpawnedGateway;
let key: string;
/** Lets the held stream go on. */
let letGo: () => void = () => undefined;

const chunk = (delta: Json, finish: string | null = null, usage?: Json) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });

beforeAll(async () => {
  db = await createTestDatabase();
  const held = new Promise<void>((resolve) => (letGo = resolve));
  upstream = await startFakeUpstream((request) => {
    const body = request.json as Json;
    const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
    if (JSON.stringify(body.messages.at(-1)).includes('slow')) {
      // The first words go out at once; the rest waits for the test.
      return {
        sse: chatSse([chunk({ role: 'assistant', content: 'first' })], false),
        resume: held.then(() => chatSse([chunk({ content: ' answer' }), chunk({}, 'stop'), { ...chunk({}), choices: [], usage }])),
      };
    }
    const text = `answer ${body.messages.length}`;
    if (body.stream) return { sse: chatSse([chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), { ...chunk({}), choices: [], usage }]) };
    return { json: { id: 'chatcmpl-2', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage } };
  });
  const dir = tempDir('gw-pg-conv-');
  const configFile = writeConfig(dir, {
    store: { postgres: db.url },
    providers: { oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] } },
    routing: { retry: { attempts: 1 } },
  });
  // A first: it makes the first key, which B then accepts.
  a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a') });
  b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b') });
  key = a.key!;
}, 60_000);

afterAll(async () => {
  letGo();
  await Promise.all([a?.stop(), b?.stop()]);
  await upstream?.close();
  await db?.drop();
});

const clientOf = (g: SpawnedGateway) => new OpenAI({ baseURL: `${g.url}/v1`, apiKey: key, maxRetries: 0 });
/** A turn on `conversation` through `g`, as sent on the wire: its status, Retry-After and body. */
const turn = async (g: SpawnedGateway, conversation: string, input: string, stream = false) => {
  const res = await fetch(`${g.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'oc/gpt-4o-mini', input, conversation, stream }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
};
/** A refusal without what names its own request (its id, its time): what two refusals of the same turn share. */
const sameApart = (sent: Awaited<ReturnType<typeof turn>>) => ({ ...sent, body: { ...sent.body, correlation_id: 'req', timestamp: 0, error: { ...sent.body.error, request_id: 'req' } } });
const texts = (items: Json[]) => items.filter((item) => item.type === 'message').map((item) => `${item.role}: ${item.content.map((part: Json) => part.text).join('')}`);

describe('a conversation on two instances sharing PostgreSQL', () => {
  it("a turn on B while A's turn on it streams gets A's 409, before any upstream call; once A's turn is added, B's next turn runs on it", async () => {
    const conversation = await clientOf(a).conversations.create({});
    const stream = await clientOf(a).responses.create({ model: 'oc/gpt-4o-mini', input: 'slow question', conversation: conversation.id, stream: true });
    const events = stream[Symbol.asyncIterator]();
    // A's answer is streaming: its first words have reached the client, the rest is held.
    await until('the first words of A\'s turn', async () => ((await events.next()).value?.type === 'response.output_text.delta' ? true : undefined));
    const calls = upstream.requests.length;

    const onA = await turn(a, conversation.id, 'second question');
    expect(onA.status).toBe(409);
    expect(onA.retryAfter).toBe('1');
    expect(onA.body.error).toMatchObject({ param: 'conversation', code: 'conflict' });
    expect(onA.body.error.message).toContain('Another process is currently operating on this conversation');
    for (const streamed of [false, true]) {
      const onB = await turn(b, conversation.id, 'second question', streamed);
      // The same envelope, field for field; only the request's own id and time differ.
      expect(sameApart(onB)).toEqual(sameApart(onA));
    }
    // The SDK on B sees the ConflictError it retries after Retry-After.
    const sdk = await clientOf(b).responses.create({ model: 'oc/gpt-4o-mini', input: 'second question', conversation: conversation.id }).catch((e: unknown) => e);
    expect(sdk).toBeInstanceOf(OpenAI.ConflictError);
    expect(upstream.requests.length).toBe(calls);
    // Another conversation is not held by it, on either instance.
    const elsewhere = await clientOf(b).conversations.create({});
    expect((await turn(b, elsewhere.id, 'hi')).status).toBe(200);

    letGo();
    let done: Json | undefined;
    for (let next = await events.next(); !next.done; next = await events.next()) if (next.value.type === 'response.completed') done = next.value.response;
    expect(done?.output_text ?? done?.output?.[0]?.content?.[0]?.text).toBe('first answer');

    // A's turn was added and given back before its last event went out: B's next turn, sent at once, runs with A's turn as its history.
    const next = await turn(b, conversation.id, 'second question');
    expect(next.status).toBe(200);
    expect(next.body.output[0].content[0].text).toBe('answer 3');
    expect((upstream.requests.at(-1)!.json as Json).messages.map((m: Json) => m.content)).toEqual(['slow question', 'first answer', 'second question']);
    for (const g of [a, b]) {
      const items = await clientOf(g).conversations.items.list(conversation.id, { order: 'asc' });
      expect(texts(items.data as never)).toEqual(['user: slow question', 'assistant: first answer', 'user: second question', 'assistant: answer 3']);
    }
  });

  it('a turn answered or failed on one instance has given the conversation back when the client sees it: the next one, at once, runs on the other', async () => {
    const conversation = await clientOf(b).conversations.create({});
    expect((await turn(b, conversation.id, 'hi')).status).toBe(200);
    const missing = await clientOf(b).responses.create({ model: 'oc/no-such-model', input: 'hi', conversation: conversation.id }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.APIError);
    expect(missing).not.toBeInstanceOf(OpenAI.ConflictError);
    const after = await turn(a, conversation.id, 'again');
    expect(after.status).toBe(200);
    expect(after.body.output[0].content[0].text).toBe('answer 3');
  });
});
