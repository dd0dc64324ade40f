import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { GatewayError } from '../../src/errors/index.ts';
import { RedisRateLimitStore, type RedisRateLimitStoreOptions } from '../../src/limits/index.ts';
import { startFreezableProxy } from './freezable-proxy.ts';
import { describeRateLimitStore } from './rate-limit-store.case.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// Port 1 on loopback: nothing listens, so connecting fails at once.
const DEAD_URL = 'redis://127.0.0.1:1';
const PREFIX = `gw:rl:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
const TIMEOUT_MS = 250;

let admin: Redis;
const silent = () => {};

async function connected(options: RedisRateLimitStoreOptions = {}): Promise<RedisRateLimitStore> {
  const store = new RedisRateLimitStore({ url: REDIS_URL, prefix: PREFIX, commandTimeoutMs: TIMEOUT_MS, log: silent, ...options });
  expect(await store.ready(5_000)).toBe(true);
  return store;
}

beforeAll(async () => {
  admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  admin.on('error', silent);
  expect(await admin.ping()).toBe('PONG');
});

afterAll(async () => {
  const keys = await admin.keys(`${PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describeRateLimitStore('redis', () => connected(), 'later');

describe('RedisRateLimitStore across instances', () => {
  it('two gateway instances hammering one key admit exactly N', async () => {
    const [a, b] = await Promise.all([connected(), connected()]);
    const hits = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).hit('shared', 77, 60_000));
    const results = await Promise.all(hits);
    expect(results.filter((r) => r.allowed)).toHaveLength(77);
    expect(results.some((r) => r.degraded)).toBe(false);
    expect(await admin.zcard(`${PREFIX}hit:shared`)).toBe(77);
    await Promise.all([a.close(), b.close()]);
  });

  it('two instances share concurrency slots exactly', async () => {
    const [a, b] = await Promise.all([connected(), connected()]);
    const leases = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).acquire('slots', 6, 60_000)));
    const held = leases.filter((l) => l !== null);
    expect(held).toHaveLength(6);
    await held[0]?.release();
    expect(await b.acquire('slots', 6, 60_000)).not.toBeNull();
    await Promise.all([a.close(), b.close()]);
  });

  it('stores hits under the prefix with a TTL of one window', async () => {
    const store = await connected();
    await store.hit('ttl', 5, 30_000);
    const ttl = await admin.pttl(`${PREFIX}hit:ttl`);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    const lease = await store.acquire('ttl', 2, 45_000);
    expect(await admin.pttl(`${PREFIX}cc:ttl`)).toBeGreaterThan(44_000);
    await lease?.release();
    expect(await admin.exists(`${PREFIX}cc:ttl`)).toBe(0);
    await store.close();
  });

  it('reloads its scripts after Redis forgot them (EVALSHA → NOSCRIPT → EVAL)', async () => {
    const store = await connected();
    expect((await store.hit('noscript', 3, 60_000)).used).toBe(1);
    await admin.script('FLUSH');
    expect((await store.hit('noscript', 3, 60_000)).used).toBe(2);
    expect((await store.acquire('noscript', 1, 60_000))?.remaining).toBe(0);
    await store.close();
  });
});

describe('RedisRateLimitStore failure policy', () => {
  it('fails open when Redis is unreachable: admitted, flagged degraded, without waiting', async () => {
    const store = new RedisRateLimitStore({ url: DEAD_URL, prefix: PREFIX, commandTimeoutMs: TIMEOUT_MS, log: silent });
    const started = performance.now();
    const result = await store.hit('down', 5, 60_000);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 100);
    expect(result).toMatchObject({ allowed: true, degraded: true, limit: 5, retryAfterMs: 0 });
    const lease = await store.acquire('down', 3, 1_000);
    expect(lease).toMatchObject({ degraded: true, remaining: 2 });
    await lease?.release();
    await store.close();
  });

  it('fails closed when asked: service_unavailable, without waiting', async () => {
    const store = new RedisRateLimitStore({ url: DEAD_URL, prefix: PREFIX, onError: 'closed', commandTimeoutMs: TIMEOUT_MS, log: silent });
    const started = performance.now();
    const error = await store.hit('down', 5, 60_000).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 100);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
    await expect(store.acquire('down', 3, 1_000)).rejects.toMatchObject({ code: 'service_unavailable' });
    await store.close();
  });

  it('a Redis that stops answering costs at most the command timeout, then recovers', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await startFreezableProxy(Number(target.port || 6379), target.hostname);
    const open = await connected({ url: `redis://127.0.0.1:${proxy.port}` });
    const closed = await connected({ url: `redis://127.0.0.1:${proxy.port}`, onError: 'closed' });
    expect(await open.hit('stall', 10, 60_000)).toMatchObject({ allowed: true, used: 1 });

    proxy.freeze();
    let started = performance.now();
    expect(await open.hit('stall', 10, 60_000)).toMatchObject({ allowed: true, degraded: true });
    let elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 250);
    started = performance.now();
    await expect(closed.hit('stall', 10, 60_000)).rejects.toMatchObject({ code: 'service_unavailable' });
    elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 250);

    proxy.thaw();
    // The held bytes land: both stalled hits are counted (waited for, not assumed after 50 ms).
    await expect.poll(() => admin.zcard(`${PREFIX}hit:stall`), { timeout: 5_000, interval: 10 }).toBe(3);
    // The stalled hits reached Redis late and counted (at-least-once): 1 + 2 stalled + this one.
    const after = await open.hit('stall', 10, 60_000);
    expect(after.degraded).toBeUndefined();
    expect(after.used).toBe(4);
    await Promise.all([open.close(), closed.close()]);
    await proxy.close();
  });

  it('a slot whose acquire timed out is given back once Redis gets the late script (open and closed)', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await startFreezableProxy(Number(target.port || 6379), target.hostname);
    const open = await connected({ url: `redis://127.0.0.1:${proxy.port}` });
    const closed = await connected({ url: `redis://127.0.0.1:${proxy.port}`, onError: 'closed' });
    proxy.freeze();
    expect(await open.acquire('late-slot', 2, 60_000)).toMatchObject({ degraded: true });
    await expect(closed.acquire('late-slot', 2, 60_000)).rejects.toMatchObject({ code: 'service_unavailable' });
    proxy.thaw();
    // A command sent after them on each connection is answered after theirs ran.
    await open.hit('late-slot-after', 10, 60_000);
    await closed.hit('late-slot-after', 10, 60_000);
    // Before: both slots stayed held until their TTL, and the caller was refused in the meantime.
    expect(await admin.zcard(`${PREFIX}cc:late-slot`)).toBe(0);
    const lease = await open.acquire('late-slot', 2, 60_000);
    expect(lease).toMatchObject({ remaining: 1 });
    await lease?.release();
    await Promise.all([open.close(), closed.close()]);
    await proxy.close();
  });

  it('logs an outage once, by error code, without the address or credentials', async () => {
    const lines: string[] = [];
    const store = new RedisRateLimitStore({ url: 'redis://gateway:s3cret-pass@127.0.0.1:1', prefix: PREFIX, log: (line) => lines.push(line) });
    for (let i = 0; i < 5; i++) await store.hit('down', 5, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // let a few reconnects fail too
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Redis unavailable/);
    expect(lines.join('\n')).not.toMatch(/s3cret|gateway:|127\.0\.0\.1/);
    await store.close();
  });

  it('reports readiness without throwing when Redis is away', async () => {
    const store = new RedisRateLimitStore({ url: DEAD_URL, prefix: PREFIX, log: silent });
    expect(await store.ready(200)).toBe(false);
    await store.close();
  });
});
