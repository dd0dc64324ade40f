import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { namedSse, startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { messagesResponse, messagesStream, readSse } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { SseRecord } from '../../src/sse/index.ts';

const TIMEOUTS = { connect: 500, firstByte: 400, idle: 400, total: 4000 };
const ok = (): FakeReply => ({ sse: messagesStream(['Hel', 'lo']) });
const overloaded = (): FakeReply => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });

function messagesText(records: SseRecord[]): string {
  let text = '';
  for (const r of records) {
    if (r.event !== 'content_block_delta') continue;
    text += (JSON.parse(r.data) as { delta: { text?: string } }).delta.text ?? '';
  }
  return text;
}

// The same faults through the `anthropic` plugin (upstream /v1/messages), for Messages
// clients (passthrough) and Chat clients (converted).
describe('routing: upstream faults (anthropic plugin)', () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let gw: SpawnedGateway;

  const post = (route: string, body: Record<string, unknown>) =>
    fetch(`${gw.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...body }),
      signal: AbortSignal.timeout(8000),
    });

  beforeAll(async () => {
    primary = await startFakeUpstream(ok);
    backup = await startFakeUpstream(ok);
    gw = await spawnGateway({
      config: {
        providers: {
          a1: { plugin: 'anthropic', baseURL: primary.url, apiKey: 'x', models: ['claude-x'], priority: 1, timeouts: TIMEOUTS },
          a2: { plugin: 'anthropic', baseURL: backup.url, apiKey: 'x', models: ['claude-x'], priority: 2, timeouts: TIMEOUTS },
        },
        routing: { retry: { baseMs: 10 }, breaker: { failureThreshold: 1000 } },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await primary?.close();
    await backup?.close();
  });
  beforeEach(() => {
    primary.requests.length = 0;
    backup.requests.length = 0;
    primary.setHandler(ok);
    backup.setHandler(ok);
  });

  it('falls back on 529 overloaded, streamed and not', async () => {
    primary.setHandler(overloaded);
    const res = await post('/v1/messages', { model: 'claude-x', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-fallback-reason')).toBe('provider_unavailable');
    expect(res.headers.get('x-routing-resolved-model')).toBe('a2/claude-x');
    expect(messagesText(await readSse(res))).toBe('Hello');
    backup.setHandler(() => ({ json: messagesResponse('Hello') }));
    const json = await post('/v1/messages', { model: 'claude-x' });
    expect(json.headers.get('x-fallback-used')).toBe('true');
    expect(((await json.json()) as { content: Array<{ text: string }> }).content[0].text).toBe('Hello');
    expect(backup.requests[0].path).toBe('/v1/messages');
  });

  it('falls back when a 200 stream opens with an overloaded_error event', async () => {
    primary.setHandler(() => ({ sse: namedSse([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]) }));
    const res = await post('/v1/messages', { model: 'claude-x', stream: true });
    expect(res.headers.get('x-fallback-reason')).toBe('provider_unavailable');
    expect(messagesText(await readSse(res))).toBe('Hello');
  });

  it('a pinned model is retried on its provider only, then fails with the Messages error body', async () => {
    primary.setHandler(overloaded);
    const res = await post('/v1/messages', { model: 'a1/claude-x', stream: true });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { type: string; error: { type: string; code: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'overloaded_error', code: 'provider_unavailable' } });
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(0);
  });

  it('a mid-stream stall ends a Messages stream with event: error, and closes', async () => {
    primary.setHandler(() => ({ sse: messagesStream(['Hel', 'lo']).slice(0, 3), stall: true }));
    const started = Date.now();
    const records = await readSse(await post('/v1/messages', { model: 'claude-x', stream: true }));
    expect(Date.now() - started).toBeLessThan(2500);
    expect(messagesText(records)).toBe('Hel');
    const last = records.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: 'timeout_error', code: 'provider_timeout' } });
    expect(records.some((r) => r.event === 'message_stop')).toBe(false);
  });

  it('a truncated Messages stream (no message_stop) ends with event: error', async () => {
    primary.setHandler(() => ({ sse: messagesStream(['Hel', 'lo'], { stop: false }).slice(0, 4) }));
    const records = await readSse(await post('/v1/messages', { model: 'claude-x', stream: true }));
    expect(records.at(-1)!.event).toBe('error');
    expect(JSON.parse(records.at(-1)!.data)).toMatchObject({ error: { code: 'provider_error' } });
  });

  it('an invalid JSON event ends with event: error', async () => {
    const pieces = messagesStream(['Hel', 'lo']);
    primary.setHandler(() => ({ sse: [...pieces.slice(0, 3), 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n', ...pieces.slice(3)] }));
    const records = await readSse(await post('/v1/messages', { model: 'claude-x', stream: true }));
    expect(messagesText(records)).toBe('Hel');
    expect(records.at(-1)!.event).toBe('error');
  });

  it('a reset mid-stream reaches a Chat client (converted) as its error chunk', async () => {
    primary.setHandler(() => ({ sse: messagesStream(['Hel', 'lo']).slice(0, 3), delayMs: 30, reset: true }));
    const res = await post('/v1/chat/completions', { model: 'claude-x', stream: true });
    expect(res.status).toBe(200);
    const records = await readSse(res);
    const last = JSON.parse(records.at(-1)!.data) as { error?: { code: string } };
    expect(last.error?.code).toBe('provider_error');
    expect(records.some((r) => r.data === '[DONE]')).toBe(false);
  });
});
