import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';
import { BIN, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const STREAMS = 1000;

/**
 * An OpenAI-compatible upstream whose streams send their first chunk at once and the rest only
 * when released: every stream stays open (one connection each) until the test lets them end.
 */
async function startSlowUpstream() {
  const held: Array<() => void> = [];
  let served = 0;
  const chunk = (content: string, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm1', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('first '));
      held.push(() => {
        if (res.destroyed) return;
        res.end(`${chunk('last', 'stop')}data: [DONE]\n\n`);
        served += 1;
      });
    });
  });
  server.maxConnections = 4 * STREAMS;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    served: () => served,
    release() {
      for (const end of held.splice(0)) end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The gateway under a shell that raises the soft file-descriptor limit (each stream holds two sockets there). */
const RAISED_FDS = ['sh', '-c', '[ "$(ulimit -n)" -ge 8192 ] || ulimit -n 8192 2>/dev/null; exec "$0" "$@"', process.execPath, BIN];

const UNLIMITED = {
  default: null,
  tiers: { free: null, basic: null, fellow: null, pro: null, enterprise: null },
  endpoints: { 'POST /v1/chat/completions': null },
  concurrency: { default: null, tiers: { free: null, basic: null, fellow: null, pro: null, enterprise: null } },
};

/** Opens one streamed chat request; resolves with its status once the response head arrived. */
function openStream(gw: SpawnedGateway, agent: http.Agent, sink: { responses: http.IncomingMessage[] }): Promise<number> {
  const body = JSON.stringify({ model: 'slow/m1', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      sink.responses.push(res);
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => (text += d));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
}

async function scrape(gw: SpawnedGateway) {
  return parsePrometheus(await (await fetch(`${gw.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text());
}

// Issue 27 §4: undici's pool allowed 128 calls per upstream origin and queued the rest silently
// (744 of 1,000 streams had no response head after 47 s).
/** A slow upstream and a gateway in front of it (provider `slow`), for the tests of one describe block. */
function slowSetup(provider: Record<string, unknown>, command?: string[]) {
  const ctx = {} as { up: Awaited<ReturnType<typeof startSlowUpstream>>; gw: SpawnedGateway; agent: http.Agent };
  beforeAll(async () => {
    ctx.agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    ctx.up = await startSlowUpstream();
    ctx.gw = await spawnGateway({
      command,
      config: { providers: { slow: { plugin: 'openai', baseURL: `${ctx.up.url}/v1`, apiKey: 'x', models: ['m1'], ...provider } }, limits: UNLIMITED },
    });
  }, 60_000);
  afterAll(async () => {
    ctx.up?.release();
    await ctx.gw?.stop();
    await ctx.up?.close();
    ctx.agent?.destroy();
  });
  return ctx;
}

describe('upstream capacity: 1,000 concurrent slow streams to one upstream', () => {
  const ctx = slowSetup({}, RAISED_FDS);

  it('all start within 10 s at the default settings, and all finish once released', { timeout: 120_000 }, async () => {
    const { up, gw, agent } = ctx;
    // One stream first, so the 10 s measure the load and not the first request's module loading.
    const warm = { responses: [] as http.IncomingMessage[] };
    expect(await openStream(gw, agent, warm)).toBe(200);
    up.release();
    await readAll(warm.responses[0]);
    const sink = { responses: [] as http.IncomingMessage[] };
    const deadline = AbortSignal.timeout(10_000);
    const opened = Array.from({ length: STREAMS }, () => openStream(gw, agent, sink));
    const started = await Promise.race([
      Promise.all(opened),
      new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new Error(`only ${sink.responses.length} of ${STREAMS} streams had a response head after 10 s`)))),
    ]);
    expect(started.filter((status) => status === 200)).toHaveLength(STREAMS);
    expect(up.held).toHaveLength(STREAMS); // every one reached the upstream at once: none waits behind another

    const metrics = await scrape(gw);
    expect(valueOf(metrics, 'gateway_upstream_connections_in_use', { provider: 'slow' })).toBe(STREAMS);
    expect(valueOf(metrics, 'gateway_upstream_queued', { provider: 'slow' })).toBe(0);

    up.release();
    const bodies = await Promise.all(sink.responses.map(readAll));
    for (const text of bodies) expect(text).toContain('[DONE]');
    expect(up.served()).toBe(STREAMS + 1);
    await until('the connections to be given back', async () => ((valueOf(await scrape(gw), 'gateway_upstream_connections_in_use', { provider: 'slow' }) === 0) ? true : undefined));
  });
});

describe('upstream capacity: a full connection queue answers 503 and counts it', () => {
  const ctx = slowSetup({ maxConnections: 2, maxQueued: 1, queueTimeoutMs: 1500 });

  const post = () =>
    fetch(`${ctx.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow/m1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(20_000),
    });

  it('queues within the bound, refuses beyond it and after the timeout, never waits silently', { timeout: 60_000 }, async () => {
    const { up, gw, agent } = ctx;
    const sink = { responses: [] as http.IncomingMessage[] };
    expect(await Promise.all([openStream(gw, agent, sink), openStream(gw, agent, sink)])).toEqual([200, 200]);
    const waiting = post(); // the third call waits for one of the two connections
    await until('one call to be queued', async () => (valueOf(await scrape(gw), 'gateway_upstream_queued', { provider: 'slow' }) === 1 ? true : undefined));

    const full = await post(); // the queue (1) is full: refused at once
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    const fullBody = (await full.json()) as { error: { code: string; message: string } };
    expect(fullBody.error.code).toBe('service_unavailable');
    expect(fullBody.error.message).toContain('maxConnections');

    const timedOut = await waiting; // nobody frees a connection within queueTimeoutMs
    expect(timedOut.status).toBe(503);
    expect(((await timedOut.json()) as { error: { message: string } }).error.message).toContain('1500 ms');
    expect(up.held).toHaveLength(2); // neither refused call reached the upstream

    const metrics = await scrape(gw);
    expect(valueOf(metrics, 'gateway_upstream_queue_refused_total', { provider: 'slow', reason: 'queue_full' })).toBe(1);
    expect(valueOf(metrics, 'gateway_upstream_queue_refused_total', { provider: 'slow', reason: 'queue_timeout' })).toBe(1);
    expect(valueOf(metrics, 'gateway_upstream_connections_in_use', { provider: 'slow' })).toBe(2);
    expect(valueOf(metrics, 'gateway_circuit_open', { provider: 'slow', model: 'm1' })).toBe(0); // a busy gateway is not a failing upstream

    // A queued call gets the connection a finished stream gives back.
    const next = post();
    await until('the next call to be queued', async () => (valueOf(await scrape(gw), 'gateway_upstream_queued', { provider: 'slow' }) === 1 ? true : undefined));
    up.release();
    for (const res of sink.responses) expect(await readAll(res)).toContain('[DONE]');
    const served = await next;
    expect(served.status).toBe(200);
    await until('the queued stream to reach the upstream', async () => (up.held.length === 1 ? true : undefined));
    up.release();
    expect(await served.text()).toContain('[DONE]');
  });
});
