/**
 * `server.maxConnections` from outside: past the cap a new connection's request gets a clear
 * 503 service_unavailable envelope with Retry-After (not a silent drop), and once connections
 * close the gateway takes new ones again.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

describe('a connection cap with a clear refusal', () => {
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { server: { maxConnections: 3 }, providers: { mock: { plugin: 'mock' } } } });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('the fourth connection is answered 503 with Retry-After; a freed slot is taken again', { timeout: 30_000 }, async () => {
    const { port } = new URL(gw.url);
    const held = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    const health = 'GET /health HTTP/1.1\r\nHost: gateway';
    const refused = await until('a refusal', async () => {
      const answer = await rawRequest(gw.url, health, () => undefined);
      return answer.status === 503 ? answer : undefined;
    });
    expect(refused.text).toMatch(/retry-after: 1/i);
    expect(refused.text).toMatch(/connection: close/i);
    expect(refused.text).toContain('"code":"service_unavailable"');
    expect(refused.text).toContain('server.maxConnections');
    await refused.closed;
    for (const socket of held) socket.destroy();
    const ok = await until('a connection taken again', async () => {
      const answer = await rawRequest(gw.url, health, () => undefined);
      return answer.status === 200 ? answer : undefined;
    });
    expect(ok.text).toContain('"status"');
    expect(gw.process.exitCode).toBeNull();
  });
});
