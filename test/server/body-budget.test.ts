// The parse budget of large JSON bodies (server.bodyLimits.inFlight) is made once with the
// gateway and handed to the routes (ServerDeps.bodyBudget): a body past it is refused with 503.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, type TestGateway } from '../accounts/make-gateway.ts';

describe('the parse budget of large bodies', () => {
  let gw: TestGateway;
  let server: http.Server;
  let url: string;
  let key: string;

  beforeAll(async () => {
    gw = await makeGateway({ server: { bodyLimits: { inFlight: 20_000 } } });
    key = (await gw.account()).key;
    // Served by Node: the incremental parser (bodies past 16 KiB) is the one that holds the budget.
    server = http.createServer(toNodeHandler(gw.gateway.app));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gw.close();
  });

  const chat = (content: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content }] }),
    });

  it('refuses a body larger than the whole budget with 503 naming it, and serves one that fits', async () => {
    const refused = await chat('x'.repeat(30_000));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string; details?: Record<string, unknown> } }).error).toMatchObject({
      code: 'service_unavailable',
      details: { limit_in_flight_bytes: 20_000 },
    });
    const served = await chat('y'.repeat(17_000));
    expect(served.status).toBe(200);
    expect(gw.gateway.deps.bodyBudget.inUse).toBe(0);
  });
});
