import { afterEach, describe, expect, it } from 'vitest';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';

describe('the metrics route', () => {
  let gateway: InProcessGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('serves the exposition at a configured path, counting the requests before it', async () => {
    gateway = await inProcessGateway({ providers: { mock: { plugin: 'mock' } }, metrics: { path: '/internal/metrics' } });
    const chat = await gateway.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    await chat.text();
    expect((await gateway.request('/metrics')).status).toBe(404);
    const res = await gateway.request('/internal/metrics');
    expect(res.status).toBe(200);
    const m = parsePrometheus(await res.text());
    expect(valueOf(m, 'gateway_requests_total', { route: '/v1/chat/completions', status: '200', api_format: 'chat' })).toBe(1);
    expect(valueOf(m, 'gateway_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
  });

  it('counts health probes under their route, and leaves them out of the live window', async () => {
    gateway = await inProcessGateway({ providers: { mock: { plugin: 'mock' } } });
    for (let i = 0; i < 5; i++) expect((await gateway.request('/health')).status).toBe(200);
    const chat = await gateway.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await chat.text();
    // A balancer probing every few seconds does not drown the operator's view: one client request, one row.
    const live = gateway.deps.observer.activity();
    expect(live.latest.map((r) => r.route)).toEqual(['/v1/chat/completions']);
    expect([live.requests, live.total_requests, live.active_requests]).toEqual([1, 1, 0]);
    const m = parsePrometheus(await (await gateway.request('/metrics')).text());
    expect(valueOf(m, 'gateway_requests_total', { route: '/health', status: '200' })).toBe(5);
  });

  it('is not served when metrics are disabled', async () => {
    gateway = await inProcessGateway({ providers: { mock: { plugin: 'mock' } }, metrics: { enabled: false } });
    const res = await gateway.request('/metrics');
    expect(res.status).toBe(404);
    expect(gateway.deps.observer.metrics).toBeUndefined();
  });
});
