/**
 * OpenRouter's generation stats on PostgreSQL through the real CLI: each settlement goes through
 * the instance's outbox to `gw_ledger`, whose row keeps the answer's own id, finish reason,
 * whether it streamed and its latency; `GET /v1/generation` finds the request by its
 * X-Request-ID or by the answer's id (what OpenRouter apps pass), for the key that made it.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const USAGE = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };

/** A Chat answer whose id names the request's `user`, whole or streamed. */
function chatReply(body: Json) {
  const base = { id: `chatcmpl-${body.user}`, created: 1_700_000_000, model: body.model };
  if (!body.stream) return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'length' }], usage: USAGE } };
  const chunks: Json[] = [
    { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] },
    { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { ...base, object: 'chat.completion.chunk', choices: [], usage: USAGE },
  ];
  return { headers: { 'content-type': 'text/event-stream' }, sse: chatSse(chunks) };
}

describe('GET /v1/generation on PostgreSQL (bin/gateway, store: { postgres })', () => {
  let db: TestDatabaseWithClient;
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let cli: (args: string[]) => ReturnType<typeof runCli>;

  beforeAll(async () => {
    db = await connectTestDatabase();
    upstream = await startFakeUpstream((request) => chatReply(request.json as Json));
    const dir = tempDir('gw-generation-pg-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      store: { postgres: db.url },
      providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: [{ id: 'm', pricing: { input: 1000, output: 1000 } }] } },
      routing: { retry: { attempts: 1 } },
    });
    cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    const made = await cli(['accounts', 'create', '--email', 'gen@example.com', '--credits', '100000']);
    expect(made.exitCode, String(made.stderr)).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'gen@example.com', '--json']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (JSON.parse(String(created.stdout)) as { key: string }).key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
    await db?.drop();
  });

  it('finds a whole answer and a streamed one by the answer\'s own id and by X-Request-ID; gw_ledger keeps them', async () => {
    const { data, response } = await client.chat.completions.create({ model: 'up/m', messages: [{ role: 'user', content: 'hi' }], user: 'pg-whole' }).withResponse();
    const requestId = response.headers.get('x-request-id')!;
    expect(data.id).toBe('chatcmpl-pg-whole');
    let streamedId = '';
    const stream = await client.chat.completions.create({ model: 'up/m', messages: [{ role: 'user', content: 'hi' }], user: 'pg-stream', stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) streamedId = chunk.id;
    expect(streamedId).toBe('chatcmpl-pg-stream');

    const byAnswer = (await client.get('/generation', { query: { id: data.id } })) as { data: Json };
    expect(byAnswer.data).toMatchObject({ id: requestId, model: 'up/m', upstream_id: 'chatcmpl-pg-whole', finish_reason: 'length', streamed: false, tokens_prompt: 10, tokens_completion: 2, usage: 0.012 });
    expect(byAnswer.data.latency).toBeGreaterThanOrEqual(0);
    const byRequest = (await client.get('/generation', { query: { id: requestId } })) as { data: Json };
    expect(byRequest.data).toEqual(byAnswer.data);
    const streamed = (await client.get('/generation', { query: { id: streamedId } })) as { data: Json };
    expect(streamed.data).toMatchObject({ model: 'up/m', upstream_id: streamedId, streamed: true, finish_reason: 'stop', native_finish_reason: 'stop' });

    const { rows } = await db.sql.query('select request_id, answer_id, finish_reason, streamed, latency_ms from gw_ledger order by seq');
    expect(rows).toEqual([
      { request_id: requestId, answer_id: 'chatcmpl-pg-whole', finish_reason: 'length', streamed: null, latency_ms: byAnswer.data.latency },
      { request_id: streamed.data.id, answer_id: 'chatcmpl-pg-stream', finish_reason: 'stop', streamed: true, latency_ms: streamed.data.latency },
    ]);

    const other = JSON.parse(String((await cli(['keys', 'create', '--account', 'gen@example.com', '--json'])).stdout)) as { key: string };
    const foreign = await fetch(`${gw.url}/v1/generation?id=${data.id}`, { headers: { authorization: `Bearer ${other.key}` } });
    expect(foreign.status).toBe(404);
  });
});
