import { afterEach, describe, expect, it } from 'vitest';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';

describe('health probes', () => {
  let gateway: InProcessGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('are counted in metrics under their route, and left out of the live window', async () => {
    gateway = await inProcessGateway({ providers: { mock: { plugin: 'mock' } } });
    for (let i = 0; i < 5; i++) expect((await gateway.request('/health')).status).toBe(200);
    const chat = await gateway.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    await chat.text();

    // A load balancer probing every few seconds does not drown the operator's view: one client request, one row.
    const live = gateway.deps.observer.activity();
    expect(live.latest.map((r) => r.route)).toEqual(['/v1/chat/completions']);
    expect(live.requests).toBe(1);
    expect(live.total_requests).toBe(1);
    expect(live.active_requests).toBe(0);

    const m = parsePrometheus(await (await gateway.request('/metrics')).text());
    expect(valueOf(m, 'gateway_requests_total', { route: '/health', status: '200' })).toBe(5);
  });
});
