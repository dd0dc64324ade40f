import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

function chat(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });
}

/** Two data dirs holding the same account and key (as replicas of one deployment would). */
async function twinDataDirs(config: Record<string, unknown>, rpm: number, tier = 'pro') {
  const dir = tempDir();
  const configFile = writeConfig(dir, config);
  const a = path.join(dir, 'a');
  const b = path.join(dir, 'b');
  const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', a, ...args]);
  expect((await cli(['accounts', 'create', '--email', 'shared@example.com', '--tier', tier, '--credits', '1000'])).exitCode).toBe(0);
  const created = await cli(['keys', 'create', '--account', 'shared@example.com', '--rpm', String(rpm), '--json']);
  const key = (JSON.parse(String(created.stdout)) as { key: string }).key;
  fs.mkdirSync(b);
  fs.copyFileSync(path.join(a, 'db.json'), path.join(b, 'db.json'));
  return { configFile, a, b, key };
}

describe('rate limits shared by two gateway processes over Redis', () => {
  it('a key limited to N per window gets exactly N successes out of N+k concurrent requests across both', async () => {
    const N = 7;
    const windowMs = 4000;
    const config = {
      providers: { mock: { plugin: 'mock' } },
      limits: { windowMs, store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    };
    const { configFile, a, b, key } = await twinDataDirs(config, N);
    const [one, two] = await Promise.all([spawnGateway({ configFile, dataDir: a }), spawnGateway({ configFile, dataDir: b })]);
    running.push(one, two);
    // Each says at start that its limits are in that Redis, under that prefix (never a password).
    for (const g of [one, two]) expect(g.stdout()).toContain(`limits: Redis at ${new URL(REDIS_URL).protocol}//${new URL(REDIS_URL).host}, keys ${config.limits.store.prefix}* (shared with every instance on it; while it is unreachable: fail open)`);

    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? one.url : two.url, key)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(statuses.filter((s) => s === 429)).toHaveLength(13);
    // One window: the successes counted 1..N between them, whichever instance served.
    const used = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-used'))).sort((x, y) => x - y);
    expect(used).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    // Each instance got 10 requests and alone would have admitted N of them: N in all means one window.
    expect(responses.filter((_, i) => i % 2 === 0)).toHaveLength(10);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get('x-ratelimit-resource')).toBe('api_key');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(windowMs / 1000);

    // The window slides for both: still closed before the first hits leave it, open after.
    const elapsed = Date.now() - started;
    if (elapsed < windowMs - 1500) {
      await new Promise((r) => setTimeout(r, windowMs - 1500 - elapsed));
      expect((await chat(two.url, key)).status).toBe(429);
      expect((await chat(one.url, key)).status).toBe(429);
    }
    await new Promise((r) => setTimeout(r, Math.max(0, started + windowMs + 1000 - Date.now())));
    const again = await Promise.all(Array.from({ length: N + 3 }, (_, i) => chat(i % 2 === 0 ? two.url : one.url, key)));
    expect(again.filter((r) => r.status === 200)).toHaveLength(N);
  }, 60_000);
});

describe('a burst over two gateway processes on one Redis that fails closed', () => {
  it('is limited exactly and never refused as "Redis unavailable" while Redis answers (busy event loops are not a Redis outage)', async () => {
    // 300 requests at once over both: each instance parses, authenticates and admits 150
    // requests in a few event-loop turns, so a Redis reply that arrived in time may be read
    // only after its command's timer is due. That is this process being busy, not Redis.
    const N = 120;
    const config = {
      providers: { mock: { plugin: 'mock' } },
      limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:`, onError: 'closed', commandTimeoutMs: 100 } },
    };
    // Enterprise: 1,000 requests in flight per key, so only the key's RPM refuses.
    const { configFile, a, b, key } = await twinDataDirs(config, N, 'enterprise');
    const [one, two] = await Promise.all([spawnGateway({ configFile, dataDir: a }), spawnGateway({ configFile, dataDir: b })]);
    running.push(one, two);
    const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => chat(i % 2 === 0 ? one.url : two.url, key)));
    const counts: Record<number, number> = {};
    for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 200: N, 429: 300 - N });
    expect(one.stderr() + two.stderr()).not.toContain('Redis unavailable');
  }, 60_000);
});

describe('two gateways on one Redis with a moved clock', () => {
  let gws: TestGateway[] = [];
  afterEach(async () => {
    for (const g of gws) await g.close();
    gws = [];
  });

  it('a request becomes allowed again exactly when the oldest one leaves the shared window', async () => {
    let now = Date.UTC(2026, 4, 1, 12, 0, 0);
    const clock = { now: () => now };
    const config = { limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } } };
    const one = await makeGateway(config, { clock });
    const two = await makeGateway(config, { clock });
    gws.push(one, two);
    // The same account and key in both stores.
    const { key, accountId, keyId } = await one.account({ rpm: 3 });
    await two.gateway.deps.store.accounts.create(one.gateway.deps.store.cache.account(accountId)!);
    await two.gateway.deps.store.keys.create((await one.gateway.deps.store.keys.get(keyId))!);
    const send = (g: TestGateway) => g.fetch('/v1/chat/completions', post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }, key)).then((r) => r.status);

    const t0 = now;
    expect(await send(one)).toBe(200);
    now = t0 + 1_000;
    expect(await send(two)).toBe(200);
    now = t0 + 2_000;
    expect(await send(one)).toBe(200);
    now = t0 + 30_000;
    expect(await send(two)).toBe(429);
    now = t0 + 59_999;
    expect(await send(one)).toBe(429);
    now = t0 + 60_000;
    expect(await send(two)).toBe(200);
    expect(await send(one)).toBe(429);
    now = t0 + 61_000;
    expect(await send(one)).toBe(200);
    expect(await send(two)).toBe(429);
  });
});
