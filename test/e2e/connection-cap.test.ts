/**
 * `server.maxConnections` from outside: past the cap a new connection's request gets a clear
 * 503 service_unavailable envelope with Retry-After (not a silent drop), and once connections
 * close the gateway takes new ones again.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/** Opens `count` connections that send nothing (each counts against the cap). */
const holdConnections = (port: number, count: number) =>
  Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        }),
    ),
  );

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
    const held = await holdConnections(Number(port), 3);
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

  it('an HTTP/2 (h2c) connection past the cap is refused the same way, without a Connection header', { timeout: 30_000 }, async () => {
    const { port } = new URL(gw.url);
    const held = await holdConnections(Number(port), 3);
    const ask = () =>
      new Promise<{ head: http2.IncomingHttpHeaders; text: string }>((resolve, reject) => {
        const session = http2.connect(gw.url);
        session.on('error', reject);
        const stream = session.request({ ':path': '/health' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (piece: string) => (text += piece));
        stream.once('response', (head) => stream.once('end', () => (session.close(), resolve({ head, text }))));
        stream.on('error', reject);
      });
    const refused = await until('an HTTP/2 refusal', async () => {
      const answer = await ask();
      return Number(answer.head[':status']) === 503 ? answer : undefined;
    });
    expect(refused.head['retry-after']).toBe('1');
    expect(refused.head.connection).toBeUndefined();
    expect(refused.text).toContain('"code":"service_unavailable"');
    for (const socket of held) socket.destroy();
    const ok = await until('an HTTP/2 connection taken again', async () => {
      const answer = await ask();
      return Number(answer.head[':status']) === 200 ? answer : undefined;
    });
    expect(ok.text).toContain('"status"');
    expect(gw.stderr()).not.toMatch(/UnsupportedWarning/);
  });

  it('a refused HTTP/2 session is ended (GOAWAY) as a refused HTTP/1.1 connection is closed, so a busy client is not refused for ever', { timeout: 30_000 }, async () => {
    const { port } = new URL(gw.url);
    const held = await holdConnections(Number(port), 3);
    const get = (session: http2.ClientHttp2Session) =>
      new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/health' });
        stream.once('response', (head) => stream.resume().once('end', () => resolve(Number(head[':status']))));
        stream.on('error', reject);
      });
    // A client that keeps its session while the gateway lets it (as the AWS SDK's NodeHttp2Handler does), else opens another.
    let session: http2.ClientHttp2Session | undefined;
    let ended = false;
    const current = () => {
      if (!session || ended || session.closed || session.destroyed) {
        ended = false;
        session = http2.connect(gw.url);
        session.on('error', () => undefined);
        session.once('goaway', () => (ended = true));
        session.once('close', () => (ended = true));
      }
      return session;
    };
    // Each try on a new session until one is past the cap (the held connections may be counted a moment later).
    await until('an HTTP/2 refusal', async () => {
      session?.close();
      session = undefined;
      return (await get(current())) === 503 ? true : undefined;
    });
    // Slots free again: the refused session must not stay refused while its client keeps it busy.
    for (const socket of held) socket.destroy();
    await until('the refused session ended by the gateway', async () => (ended ? true : undefined), 2_000);
    // The client opens another session, served once the gateway has seen the slots freed.
    await until('a new session served', async () => ((await get(current())) === 200 ? true : undefined));
    session?.close();
  });

  it('an idle HTTP/2 connection is closed as an idle HTTP/1.1 keep-alive one is, so idle sessions cannot keep the cap taken', { timeout: 30_000 }, async () => {
    const opened = Date.now();
    const session = http2.connect(gw.url);
    session.on('error', () => undefined);
    let closedAt: number | undefined;
    session.once('close', () => (closedAt = Date.now()));
    const status = await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':path': '/health' });
      stream.once('response', (head) => stream.resume().once('end', () => resolve(Number(head[':status']))));
      stream.on('error', reject);
    });
    expect(status).toBe(200);
    // Nothing more is asked: the gateway ends the session (GOAWAY) after its keep-alive timeout, as Node's HTTP/1.1 server does (5 s).
    const after = await until('the idle session closed by the gateway', async () => closedAt, 15_000);
    expect(after - opened).toBeLessThan(15_000);
  });
});
