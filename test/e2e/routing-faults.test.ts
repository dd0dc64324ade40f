import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatChunk, chatCompletion, chatStream, chatText, readSse } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const TIMEOUTS = { connect: 500, firstByte: 400, idle: 400, total: 2500 };
const ok = (): FakeReply => ({ sse: chatStream(['Hel', 'lo']) });
const okJson = (): FakeReply => ({ json: chatCompletion('Hello') });
const failWith = (status: number, headers: Record<string, string> = {}): FakeReply => ({
  status,
  headers,
  json: { error: { message: `upstream says ${status} for sk-secret-123456789`, type: 'server_error', param: null, code: null } },
});

// The fault matrix of issue 4 against the real CLI and the `openai` plugin: each fault ends
// in a fallback with the right headers, or the right status/code, and never hangs.
describe('routing: upstream faults (openai plugin)', () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let gw: SpawnedGateway;

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
      signal: AbortSignal.timeout(8000),
    });

  beforeAll(async () => {
    primary = await startFakeUpstream(ok);
    backup = await startFakeUpstream(ok);
    gw = await spawnGateway({
      config: {
        providers: {
          p1: { plugin: 'openai', baseURL: `${primary.url}/v1`, apiKey: 'x', models: ['m1'], priority: 1, timeouts: TIMEOUTS },
          p2: { plugin: 'openai', baseURL: `${backup.url}/v1`, apiKey: 'x', models: ['m1'], priority: 2, timeouts: TIMEOUTS },
        },
        routing: { retry: { baseMs: 20, maxMs: 1500, budgetMs: 6000 }, breaker: { failureThreshold: 1000 }, fallbackDiscount: 0.15 },
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

  function expectFallback(res: Response, reason: string) {
    expect(res.status).toBe(200);
    expect(res.headers.get('x-routing-mode')).toBe('auto');
    expect(res.headers.get('x-routing-resolved-model')).toBe('p2/m1');
    expect(res.headers.get('x-fallback-used')).toBe('true');
    expect(res.headers.get('x-fallback-provider')).toBe('p2');
    expect(res.headers.get('x-fallback-reason')).toBe(reason);
    expect(res.headers.get('x-fallback-discount')).toBe('0.15');
  }

  it('serves from the first candidate without fallback headers when it is healthy', async () => {
    const res = await post({ model: 'm1', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-routing-mode')).toBe('auto');
    expect(res.headers.get('x-routing-resolved-model')).toBe('p1/m1');
    expect(res.headers.get('x-fallback-used')).toBeNull();
    expect(chatText(await readSse(res))).toBe('Hello');
    expect(backup.requests).toHaveLength(0);
  });

  const statuses: Array<[number, string, Record<string, string>]> = [
    [429, 'rate_limit_exceeded', { 'retry-after': '1' }],
    [500, 'provider_error', {}],
    [502, 'provider_error', {}],
    [503, 'provider_unavailable', {}],
    [529, 'provider_unavailable', {}],
  ];
  for (const [status, code, headers] of statuses) {
    it(`falls back on ${status} (${code}), streamed and not`, async () => {
      primary.setHandler(() => failWith(status, headers));
      const streamed = await post({ model: 'm1', stream: true });
      expectFallback(streamed, code);
      expect(chatText(await readSse(streamed))).toBe('Hello');
      backup.setHandler(okJson);
      const json = await post({ model: 'm1' });
      expectFallback(json, code);
      expect(((await json.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('Hello');
      expect(primary.requests).toHaveLength(2); // auto mode: a fallback, not a wait on the same provider
    });
  }

  it('falls back on a connection reset', async () => {
    primary.setHandler(() => ({ fault: 'reset' }));
    const res = await post({ model: 'm1', stream: true });
    expectFallback(res, 'provider_error');
    expect(chatText(await readSse(res))).toBe('Hello');
  });

  it('falls back on a slow first byte (firstByte timeout)', async () => {
    primary.setHandler(() => ({ delayMs: 1500, then: ok() }));
    const started = Date.now();
    const res = await post({ model: 'm1', stream: true });
    expectFallback(res, 'provider_timeout');
    expect(Date.now() - started).toBeLessThan(1400);
    expect(chatText(await readSse(res))).toBe('Hello');
  });

  it('falls back when the stream stalls before its first record (idle timeout)', async () => {
    primary.setHandler(() => ({ sse: [], stall: true }));
    const res = await post({ model: 'm1', stream: true });
    expectFallback(res, 'provider_timeout');
  });

  it('falls back when a 200 stream opens with an error record', async () => {
    primary.setHandler(() => ({ sse: [`data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n`] }));
    const res = await post({ model: 'm1', stream: true });
    expectFallback(res, 'provider_error');
  });

  it('falls back on a 200 JSON body that is not JSON', async () => {
    primary.setHandler(() => ({ text: '<html>gateway error</html>' }));
    backup.setHandler(okJson);
    const res = await post({ model: 'm1' });
    expectFallback(res, 'provider_error');
  });

  it('does not fall back on a 400 and does not retry it', async () => {
    primary.setHandler(() => ({ status: 400, json: { error: { message: 'bad messages', type: 'invalid_request_error', param: 'messages', code: null } } }));
    const res = await post({ model: 'm1', stream: true });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    expect(primary.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
  });

  it('returns the last error with routing headers when every candidate keeps failing', async () => {
    primary.setHandler(() => failWith(503));
    backup.setHandler(() => failWith(502));
    const res = await post({ model: 'm1', stream: true });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('provider_error');
    expect(body.error.message).not.toContain('sk-secret');
    expect(res.headers.get('x-routing-mode')).toBe('auto');
    expect(res.headers.get('x-routing-attempts')).toBe('6');
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(3);
  });

  describe('pinned provider/model', () => {
    it('retries on the same provider, honouring Retry-After, and never switches', async () => {
      primary.setHandler((_r, i) => (i === 0 ? failWith(429, { 'retry-after': '1' }) : ok()));
      const started = Date.now();
      const res = await post({ model: 'p1/m1', stream: true });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(res.headers.get('x-routing-mode')).toBe('pinned');
      expect(res.headers.get('x-routing-resolved-model')).toBe('p1/m1');
      expect(res.headers.get('x-routing-attempts')).toBe('2');
      expect(res.headers.get('x-fallback-used')).toBeNull();
      expect(chatText(await readSse(res))).toBe('Hello');
      expect(backup.requests).toHaveLength(0);
    });

    it('gives up after the configured attempts with the upstream code', async () => {
      primary.setHandler(() => failWith(503));
      const res = await post({ model: 'p1/m1' });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('provider_unavailable');
      expect(res.headers.get('x-routing-attempts')).toBe('3');
      expect(primary.requests).toHaveLength(3);
      expect(backup.requests).toHaveLength(0);
    });

    it('hands a Retry-After longer than the cap back to the client at once', async () => {
      primary.setHandler(() => failWith(429, { 'retry-after': '30' }));
      const started = Date.now();
      const res = await post({ model: 'p1/m1' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('30');
      const body = (await res.json()) as { error: { code: string; retry_after: number } };
      expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', retry_after: 30 });
      expect(primary.requests).toHaveLength(1);
    });
  });

  describe('after the first byte', () => {
    async function streamError(reply: FakeReply) {
      primary.setHandler(() => reply);
      const started = Date.now();
      const res = await post({ model: 'm1', stream: true });
      expect(res.status).toBe(200);
      const records = await readSse(res);
      const last = JSON.parse(records.at(-1)!.data) as { error?: { code: string; type: string } };
      expect(records.some((r) => r.data === '[DONE]')).toBe(false);
      expect(backup.requests).toHaveLength(0);
      return { records, error: last.error, elapsed: Date.now() - started };
    }

    it('a mid-stream stall ends with a provider_timeout error event (idle timeout)', async () => {
      const { records, error, elapsed } = await streamError({ sse: chatStream(['Hel', 'lo']).slice(0, 2), stall: true });
      expect(chatText(records.slice(0, -1))).toBe('Hel');
      expect(error).toMatchObject({ code: 'provider_timeout', type: 'api_error' });
      expect(elapsed).toBeLessThan(2000);
    });

    it('a stream that is slow overall ends at the total timeout', async () => {
      const pieces = chatStream(Array.from({ length: 40 }, () => 'x'));
      const { error, elapsed } = await streamError({ sse: pieces, delayMs: 150 });
      expect(error).toMatchObject({ code: 'provider_timeout' });
      expect(elapsed).toBeGreaterThanOrEqual(2400);
      expect(elapsed).toBeLessThan(4000);
    });

    it('a truncated stream (no finish, no [DONE]) ends with a provider_error event', async () => {
      const { records, error } = await streamError({ sse: chatStream(['Hel', 'lo']).slice(0, 3) });
      expect(chatText(records.slice(0, -1))).toBe('Hello');
      expect(error).toMatchObject({ code: 'provider_error' });
    });

    it('a record cut mid-JSON by a reset ends with a provider_error event, never half a record', async () => {
      const pieces = chatStream(['Hel', 'lo']).slice(0, 2);
      const { records, error } = await streamError({ sse: [...pieces, 'data: {"id":"chatcmpl-up1","cho'], delayMs: 30, reset: true });
      expect(chatText(records.slice(0, -1))).toBe('Hel');
      expect(error).toMatchObject({ code: 'provider_error' });
    });

    it('an invalid JSON chunk ends with a provider_error event', async () => {
      const pieces = chatStream(['Hel', 'lo']);
      const { records, error } = await streamError({ sse: [...pieces.slice(0, 2), 'data: {"choices": [oops]\n\n', ...pieces.slice(2)] });
      expect(chatText(records.slice(0, -1))).toBe('Hel');
      expect(error).toMatchObject({ code: 'provider_error' });
    });

    it('an upstream error record mid-stream goes to the client as is', async () => {
      const pieces = chatStream(['Hel', 'lo']).slice(0, 2);
      const { error } = await streamError({ sse: [...pieces, `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error', code: 'x' } })}\n\n`] });
      expect(error).toMatchObject({ type: 'server_error' });
    });
  });

  it('sends routing and fallback events before content when asked', async () => {
    primary.setHandler(() => failWith(503));
    const res = await post({ model: 'm1', stream: true }, { 'x-gateway-events': 'routing' });
    expectFallback(res, 'provider_unavailable');
    const records = await readSse(res);
    expect(records.slice(0, 2).map((r) => r.event)).toEqual(['routing', 'fallback']);
    const routing = JSON.parse(records[0].data) as Record<string, unknown>;
    expect(routing).toMatchObject({ object: 'chat.completion.chunk', choices: [], routing: { mode: 'auto', resolved_model: 'p2/m1', requested_model: 'm1' } });
    expect(JSON.parse(records[1].data)).toMatchObject({ choices: [], fallback: { provider: 'p2', reason: 'provider_unavailable', discount: 0.15, from: 'p1/m1' } });
    expect(records.slice(2).every((r) => r.event === undefined)).toBe(true);
    expect(chatText(records)).toBe('Hello');

    const plain = await post({ model: 'm1', stream: true });
    expect((await readSse(plain)).some((r) => r.event !== undefined)).toBe(false);
  });

  it('passes usage through when the client asked for it, and strips the one it did not ask for', async () => {
    const asked = await readSse(await post({ model: 'm1', stream: true, stream_options: { include_usage: true } }));
    expect(asked.some((r) => r.data.includes('"usage":{'))).toBe(true);
    expect(primary.requests[0].json?.stream_options).toEqual({ include_usage: true });
    const notAsked = await readSse(await post({ model: 'm1', stream: true }));
    expect(notAsked.some((r) => r.data.includes('"usage":{'))).toBe(false);
    expect(chatText(notAsked)).toBe('Hello');
  });
});

// Keep chatChunk referenced for readers extending the matrix.
void chatChunk;
