import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const SECRET = 'my bank password is hunter2-Zq9 and my key is sk-live-4242424242';

const waitFor = async (check: () => boolean, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

// Issue 11: one JSON line per request in the request log (never the prompt or the completion),
// and `gateway status` printing the live figures of the running server.
describe('observability: request log and gateway status', () => {
  let gw: SpawnedGateway;
  let dir: string;
  const cli = (...args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);

  beforeAll(async () => {
    dir = tempDir();
    const configFile = path.join(dir, 'gateway.config.json');
    fs.writeFileSync(configFile, JSON.stringify({ providers: { mock: { plugin: 'mock' } }, logging: { requests: 'logs/requests.jsonl' } }));
    gw = await spawnGateway({ configFile });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('logs one line per request with ids, routing, usage, cost and timings, and no prompt or completion text', { timeout: 60_000 }, async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const done = await openai.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: SECRET }] });
    expect(done.choices[0].message.content).toContain('hunter2');
    const stream = await openai.chat.completions.create({ model: 'mock/echo', stream: true, messages: [{ role: 'user', content: SECRET }] });
    for await (const chunk of stream) void chunk;
    await expect(openai.chat.completions.create({ model: 'nobody/serves-this', messages: [{ role: 'user', content: SECRET }] })).rejects.toMatchObject({ status: 404 });
    const denied = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-gw-not-a-key', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: SECRET }] }) });
    expect(denied.status).toBe(401);
    // The dashboard's page is operators' traffic (docs/dashboard.md), at its deep links too: the operator link
    // `gateway dashboard` prints, a reload of /usage (before, each was a request of route 'unmatched' here and in the log).
    for (const page of ['/', '/operator', '/usage']) expect((await fetch(`${gw.url}${page}`)).status).toBe(200);
    // The dashboard's own API calls (a sign-in, the account views it polls) are not traffic either: before, each was a
    // request here (and an error: a refused sign-in, an expired session's 401), moving requests/s and the error rate.
    const signIn = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nobody@example.test', password: 'wrong password' }) });
    expect(signIn.status).toBe(401);
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${gw.url}/api/trpc/overview`)).status).toBe(401);

    // gateway status: the same requests, seen live (its own admin call is left out).
    const status = await cli('status', '--json');
    expect(status.exitCode).toBe(0);
    const live = JSON.parse(String(status.stdout)) as Record<string, unknown> & { latest: Array<Record<string, unknown>>; top_models: Array<{ model: string; requests: number }> };
    expect(live).toMatchObject({ running: true, url: gw.url, total_requests: 4, requests: 4, errors: 2, error_rate: 0.5, dashboard_requests: 4 });
    expect(live.top_models).toEqual([{ model: 'mock/echo', requests: 2 }]);
    expect(live.latest.map((r) => r.status)).toEqual([401, 404, 200, 200]);
    expect((live.ttft_ms as { p50: number }).p50).toBeGreaterThan(0);
    expect(live.tokens_per_minute as number).toBeGreaterThan(0);
    const text = await cli('status');
    expect(text.exitCode).toBe(0);
    expect(String(text.stdout)).toMatch(/^gateway http:\/\/127\.0\.0\.1:\d+ {2}up /);
    expect(String(text.stdout)).toMatch(/dashboard calls\s+4 in the last \d+ s \(not counted above\)/);
    for (const label of ['requests/s', 'error rate', 'latency', 'time to first token', 'tokens/min', 'credits/min', 'top models', 'open circuits', 'latest requests']) {
      expect(String(text.stdout)).toContain(label);
    }
    // Each latest request names its route: the 401 has no model, and says what was asked.
    expect(String(text.stdout)).toMatch(/TIME\s+ROUTE\s+MODEL\s+PROVIDER/);
    expect(String(text.stdout)).toMatch(/\/v1\/chat\/completions\s+-\s+-\s+401 invalid_api_key/);

    expect(await gw.stop()).toBe(0); // flushes the log
    const file = path.join(dir, 'logs/requests.jsonl');
    const content = fs.readFileSync(file, 'utf8');
    expect(content).not.toContain('hunter2');
    expect(content).not.toContain('sk-live');
    expect(content).not.toContain('bank password');
    const lines = content.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // The dashboard's calls stay in the request log (an account's sign-in is worth a line), marked by their route.
    expect(lines.filter((l) => String(l.route).startsWith('/api/')).map((l) => l.route)).toEqual(['/api/auth/login', '/api/trpc/**', '/api/trpc/**', '/api/trpc/**']);
    const [json, streamed, unknown, unauthorized] = lines.filter((l) => !String(l.route).startsWith('/api/'));
    expect(lines).toHaveLength(8);
    expect(json).toMatchObject({
      route: '/v1/chat/completions',
      api_format: 'chat',
      model: 'mock/echo',
      resolved_model: 'mock/echo',
      provider: 'mock',
      stream: false,
      status: 200,
      error_code: null,
      fallback: false,
      attempts: 1,
    });
    for (const line of lines) {
      expect(line.request_id).toMatch(/^req_/);
      expect(Date.parse(line.time as string)).toBeGreaterThan(0);
      expect(line.duration_ms as number).toBeGreaterThan(0);
    }
    expect(json.account_id).toMatch(/\S/);
    expect(json.key_id).toMatch(/\S/);
    expect(json.input_tokens as number).toBeGreaterThan(0);
    expect(json.output_tokens as number).toBeGreaterThan(0);
    expect(typeof json.cost_credits).toBe('number');
    expect(streamed).toMatchObject({ stream: true, status: 200, provider: 'mock' });
    expect(streamed.ttfb_ms as number).toBeGreaterThan(0);
    expect(streamed.ttfb_ms as number).toBeLessThanOrEqual(streamed.duration_ms as number);
    expect(unknown).toMatchObject({ status: 404, error_code: 'model_not_found', provider: null, input_tokens: null });
    expect(unauthorized).toMatchObject({ status: 401, error_code: 'invalid_api_key', account_id: null, key_id: null });
    expect(fs.statSync(file).mode & 0o077).toBe(0);
  });

  it('status without a running server says so in one line and exits 1', async () => {
    const empty = tempDir();
    // A data dir with no server on it (one that is not there is the wrong folder: cli-messages covers that line).
    fs.mkdirSync(path.join(empty, 'data'));
    const result = await runCli(['--data-dir', path.join(empty, 'data'), 'status'], { cwd: empty });
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr).trim()).toBe(`gateway: no server is running on ${path.join(empty, 'data')} (start one with gateway serve)`);
  });

  // Before, --json named an open circuit's model without its provider (model: 'm1' where every other entry of the
  // snapshot, and /health, say 'down/m1'), and the text joined the two.
  it("status names an open circuit's model by its full provider/model id, in --json and in the text", { timeout: 30_000 }, async () => {
    const failing = await startFakeUpstream(() => ({ status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } }));
    const other = await spawnGateway({
      config: {
        providers: { down: { plugin: 'openai', baseURL: `${failing.url}/v1`, apiKey: 'x', models: ['m1'] } },
        routing: { breaker: { failureThreshold: 1, cooldownMs: 600_000 }, retry: { attempts: 1 } },
      },
    });
    try {
      const res = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'down/m1', messages: [{ role: 'user', content: 'x' }] }) });
      expect(res.status).toBe(503);
      const args = ['--config', other.configFile, '--data-dir', other.dataDir, 'status'];
      const json = await runCli([...args, '--json']);
      const live = JSON.parse(String(json.stdout)) as { open_circuits: Array<{ provider: string; model: string; openedAt: number }>; latest: Array<{ model: string | null }> };
      expect(live.open_circuits).toEqual([{ provider: 'down', model: 'down/m1', openedAt: expect.any(Number) }]);
      expect(live.latest[0].model).toBe('down/m1');
      const health = (await (await fetch(`${other.url}/health`)).json()) as { provider_health: Array<{ circuits: Array<{ model: string }> }> };
      expect(health.provider_health[0].circuits.map((c) => c.model)).toEqual(['down/m1']);
      const text = String((await runCli(args)).stdout);
      expect(text).toMatch(/open circuits\s+down\/m1 \(since \d\d:\d\d:\d\d\)/);
    } finally {
      await other.stop();
      await failing.close();
    }
  });

  // Before, a count's line and live entry had no model (model: null; '–' in the TUI and the operator page).
  it('a token count is logged with the model it was asked for, in every format', { timeout: 30_000 }, async () => {
    const other = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, logging: { requests: true } } });
    try {
      const json = { 'content-type': 'application/json' };
      const counts = [
        ['/v1/messages/count_tokens', { 'x-api-key': other.key!, 'anthropic-version': '2023-06-01', ...json }, { model: 'mock/echo', messages: [{ role: 'user', content: 'count me' }] }],
        ['/v1/responses/input_tokens', { authorization: `Bearer ${other.key}`, ...json }, { model: 'mock/echo', input: 'count me' }],
        ['/v1beta/models/mock/echo:countTokens', { 'x-goog-api-key': other.key!, ...json }, { contents: [{ parts: [{ text: 'count me' }] }] }],
      ] as const;
      for (const [route, headers, body] of counts) {
        const res = await fetch(`${other.url}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
        expect([route, res.status]).toEqual([route, 200]);
        const requestId = res.headers.get('x-request-id');
        await waitFor(() => other.stdout().includes(`"request_id":"${requestId}"`), 'the count line on stdout');
        const line = JSON.parse(other.stdout().split('\n').find((l) => l.includes(`"request_id":"${requestId}"`))!);
        expect([route, line.model, line.resolved_model, line.provider, line.status]).toEqual([route, 'mock/echo', null, null, 200]);
      }
      const status = await runCli(['--config', other.configFile, '--data-dir', other.dataDir, 'status', '--json']);
      const latest = (JSON.parse(String(status.stdout)) as { latest: Array<{ route: string; model: string | null }> }).latest;
      expect(latest.map((r) => r.model)).toEqual(['mock/echo', 'mock/echo', 'mock/echo']);
    } finally {
      await other.stop();
    }
  });

  it("logging.requests: true (the old boolean) writes the lines to stdout", { timeout: 30_000 }, async () => {
    const other = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, logging: { requests: true } } });
    try {
      const res = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: SECRET }] }) });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id');
      await waitFor(() => other.stdout().includes(`"request_id":"${requestId}"`), 'the request line on stdout');
      const line = other.stdout().split('\n').find((l) => l.includes(`"request_id":"${requestId}"`))!;
      expect(JSON.parse(line)).toMatchObject({ status: 200, model: 'mock/echo' });
      expect(other.stdout()).not.toContain('hunter2');
    } finally {
      await other.stop();
    }
  });
});
