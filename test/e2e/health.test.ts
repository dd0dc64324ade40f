import net from 'node:net';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { spawnGateway } from '../helpers/spawn-gateway.ts';
import { startFreezableProxy } from '../limits/freezable-proxy.ts';

interface Health {
  status: string;
  providers: string[];
  provider_health: Array<{ id: string; state: string; models: number; circuits: Array<{ model: string; state: string; failures: number; last_error?: { code: string; status?: number } }> }>;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const UPSTREAM_KEY = 'sk-upstream-never-logged-0123456789';

describe('GET /health', () => {
  it('503 when every provider fails: circuits open, last error class per model; the failures are logged at warn without the key', async () => {
    const port = await closedPort();
    const gw = await spawnGateway({
      config: {
        providers: { up: { plugin: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: UPSTREAM_KEY, models: ['m1', 'm2'] } },
        routing: { breaker: { failureThreshold: 2 }, retry: { attempts: 1 } },
      },
    });
    try {
      const ok = await fetch(`${gw.url}/health`);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as Health).provider_health).toEqual([{ id: 'up', state: 'ok', models: 2, circuits: [] }]);

      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
      for (const model of ['up/m1', 'up/m1', 'up/m2']) {
        const error = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
        expect((error as { status: number }).status).toBe(503);
      }
      // m1 open, m2 still closed: degraded, still 200.
      const degraded = await fetch(`${gw.url}/health`);
      expect(degraded.status).toBe(200);
      expect(((await degraded.json()) as Health).status).toBe('degraded');

      await client.chat.completions.create({ model: 'up/m2', messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined);
      const down = await fetch(`${gw.url}/health`);
      expect(down.status).toBe(503);
      expect(down.headers.get('cache-control')).toBe('no-store');
      const body = (await down.json()) as Health;
      expect(body.status).toBe('unavailable');
      expect(body.provider_health[0]).toMatchObject({ id: 'up', state: 'down', models: 2 });
      expect(body.provider_health[0].circuits).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ model: 'up/m1', state: 'open', failures: 2, last_error: { code: 'provider_unavailable', status: 503 } }),
          expect.objectContaining({ model: 'up/m2', state: 'open', failures: 2 }),
        ]),
      );
      expect((await fetch(`${gw.url}/health`, { method: 'HEAD' })).status).toBe(503);

      const warns = gw.stderr().split('\n').filter((l) => l.includes('warn: upstream call failed'));
      expect(warns.length).toBeGreaterThanOrEqual(2);
      expect(warns[0]).toMatch(/provider=up model=up\/m1 error=provider_unavailable status=503 .*cause=.*ECONNREFUSED/);
      expect(gw.stderr()).not.toContain(UPSTREAM_KEY);
      // Exempt from limits and cheap: a burst well over the default 600/min window is all answered.
      const burst = await Promise.all(Array.from({ length: 700 }, () => fetch(`${gw.url}/health`).then((r) => r.status)));
      expect(new Set(burst)).toEqual(new Set([503]));
    } finally {
      await gw.stop();
    }
  });

  it('one provider down and mock up is degraded, not 503; no providers at all is 503', async () => {
    const port = await closedPort();
    const gw = await spawnGateway({
      config: {
        providers: { mock: { plugin: 'mock' }, up: { plugin: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: UPSTREAM_KEY, models: ['m1'] } },
        routing: { breaker: { failureThreshold: 1 }, retry: { attempts: 1 } },
      },
    });
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
      await client.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined);
      const res = await fetch(`${gw.url}/health`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Health;
      expect(body.status).toBe('degraded');
      expect(body.provider_health.map((p) => [p.id, p.state])).toEqual([
        ['mock', 'ok'],
        ['up', 'down'],
      ]);
    } finally {
      await gw.stop();
    }

    const empty = await spawnGateway({ config: { providers: {} } });
    try {
      const res = await fetch(`${empty.url}/health`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as Health).status).toBe('unavailable');
    } finally {
      await empty.stop();
    }
  });

  it("says when the shared rate-limit store (Redis) cannot be reached: 503 unavailable when the instance fails closed (it refuses every limited request), degraded when open; ok again once Redis answers", async () => {
    const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // An instance pointed at the wrong Redis port, as one of two behind a load balancer might be.
    const proxy = await startFreezableProxy(Number(redis.port || 6379), redis.hostname);
    proxy.cut();
    const limitsAt = (onError: string) => ({ store: { redis: `redis://127.0.0.1:${proxy.port}`, prefix: `gw:test:health:${process.pid}:`, onError } });
    const [closed, open] = await Promise.all([
      spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, limits: limitsAt('closed') } }),
      spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, limits: limitsAt('open') } }),
    ]);
    try {
      const chat = (url: string) =>
        fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${url === closed.url ? closed.key : open.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
        });
      const healthOf = async (url: string) => {
        const res = await fetch(`${url}/health`);
        const body = (await res.json()) as { status: string; limits?: unknown };
        return { http: res.status, status: body.status, limits: body.limits };
      };
      expect((await chat(closed.url)).status).toBe(503);
      expect(await healthOf(closed.url)).toEqual({ http: 503, status: 'unavailable', limits: { store: 'redis', reachable: false, on_error: 'closed' } });
      expect((await chat(open.url)).status).toBe(200);
      expect(await healthOf(open.url)).toEqual({ http: 200, status: 'degraded', limits: { store: 'redis', reachable: false, on_error: 'open' } });

      proxy.restore();
      await expect.poll(() => healthOf(closed.url), { timeout: 10_000, interval: 100 }).toEqual({ http: 200, status: 'ok', limits: { store: 'redis', reachable: true, on_error: 'closed' } });
      await expect.poll(() => healthOf(open.url), { timeout: 10_000, interval: 100 }).toEqual({ http: 200, status: 'ok', limits: { store: 'redis', reachable: true, on_error: 'open' } });
      expect((await chat(closed.url)).status).toBe(200);
    } finally {
      await Promise.all([closed.stop(), open.stop()]);
      await proxy.close();
    }
  }, 60_000);
});
