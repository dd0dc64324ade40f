import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

// Issue 27 §7: with one pinned model the breaker never shed load from a failing upstream (every
// request was forced through as the "all open" last resort), and gateway_active_requests counted
// the scrape reading it.
describe('breaker: a failing pinned upstream is shed while its circuit is open', () => {
  let up: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    up = await startFakeUpstream(() => ({ status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } }));
    gw = await spawnGateway({
      config: {
        providers: { p1: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: ['m1'] } },
        routing: { retry: { attempts: 1 }, breaker: { failureThreshold: 2, cooldownMs: 600_000 } },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await up?.close();
  });

  const call = () =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'p1/m1', messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(20_000),
    });

  it('answers 503 with Retry-After and sends nothing upstream once the circuit is open', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 2; i += 1) expect((await call()).status).toBe(503);
    expect(up.requests).toHaveLength(2);
    const shed = await Promise.all(Array.from({ length: 20 }, () => call()));
    for (const res of shed) {
      expect(res.status).toBe(503);
      expect(res.headers.get('x-routing-attempts')).toBe('0');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(500);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('provider_unavailable');
      expect(body.error.message).toContain('circuit');
    }
    expect(up.requests).toHaveLength(2); // no load reached the failing upstream

    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
    expect(valueOf(metrics, 'gateway_circuit_open', { provider: 'p1', model: 'm1' })).toBe(1);
    expect(valueOf(metrics, 'gateway_active_requests')).toBe(0); // at rest; the scrape is not counted
  });
});
