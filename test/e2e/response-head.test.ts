import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putHeader } from '../../src/server/context.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const APP = 'http://app.example.test';

/**
 * One request on its own connection: the head's header lines in order, and the body bytes, once
 * the body is whole (its content length, or the last chunk: a stream's head says keep-alive) or the socket closed.
 */
function exchange(url: string, method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; lines: Array<[string, string]>; body: Buffer }> {
  const { hostname, port, host } = new URL(url);
  const all: Record<string, string> = { host, connection: 'close', ...headers };
  if (body || method === 'POST') all['content-length'] = String(Buffer.byteLength(body));
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const whole = Buffer.concat(chunks);
      const end = whole.indexOf('\r\n\r\n');
      const [statusLine, ...rest] = whole.subarray(0, end).toString('latin1').split('\r\n');
      const lines = rest.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
      resolve({ status: Number(statusLine.split(' ')[1]), lines, body: whole.subarray(end + 4) });
    };
    const socket = net.connect(Number(port), hostname, () => socket.write(head + body));
    socket.on('data', (data: Buffer) => {
      chunks.push(data);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
      if (length ? text.length - end - 4 >= Number(length[1]) : text.endsWith('\r\n0\r\n\r\n')) finish();
    });
    socket.on('error', reject);
    socket.on('close', finish);
  });
}

const names = (lines: Array<[string, string]>) => lines.map(([name]) => name.toLowerCase());
const value = (lines: Array<[string, string]>, name: string) => lines.find(([n]) => n.toLowerCase() === name)?.[1];

describe('the response head on a real server (written whole by sendBody and sendStream)', () => {
  let gw: SpawnedGateway;
  const auth = () => ({ authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', origin: APP });
  const chat = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], ...extra });

  beforeAll(async () => {
    gw = await spawnGateway({ config: { server: { cors: { origins: [APP] } }, providers: { mock: { plugin: 'mock' } } } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('a JSON answer carries every header set on its way once, in the order they were set, and its exact length', async () => {
    const res = await exchange(gw.url, 'POST', '/v1/chat/completions', auth(), chat());
    expect(res.status).toBe(200);
    const got = names(res.lines);
    expect(new Set(got).size).toBe(got.length);
    const order = ['access-control-allow-origin', 'vary', 'access-control-expose-headers', 'x-request-id', 'x-request-priority', 'x-routing-mode', 'content-type', 'content-length', 'date', 'connection'];
    expect(got.filter((n) => order.includes(n))).toEqual(order);
    expect(value(res.lines, 'access-control-allow-origin')).toBe(APP);
    expect(value(res.lines, 'x-request-id')).toMatch(/^req_/);
    expect(Number(value(res.lines, 'content-length'))).toBe(res.body.length);
    expect(JSON.parse(res.body.toString()).object).toBe('chat.completion');
  });

  it('a stream carries the same headers once, before its own', async () => {
    const res = await exchange(gw.url, 'POST', '/v1/chat/completions', auth(), chat({ stream: true }));
    expect(res.status).toBe(200);
    const got = names(res.lines);
    expect(new Set(got).size).toBe(got.length);
    const order = ['access-control-allow-origin', 'x-request-id', 'x-request-priority', 'content-type', 'cache-control', 'x-routing-mode', 'transfer-encoding'];
    expect(got.filter((n) => order.includes(n))).toEqual(order);
    expect(value(res.lines, 'content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.body.toString()).toContain('data: [DONE]');
  });

  it('an error after the admission keeps the headers set before it (CORS, request id, priority)', async () => {
    const res = await exchange(gw.url, 'POST', '/v1/chat/completions', auth(), chat({ model: 'nope/nothing' }));
    expect(res.status).toBe(404);
    const got = names(res.lines);
    expect(new Set(got).size).toBe(got.length);
    expect(got.slice(0, 4)).toEqual(['access-control-allow-origin', 'vary', 'access-control-expose-headers', 'x-request-id']);
    // The admission's limit headers (the printed key is enterprise: counted) come next, priority among them.
    expect(got.slice(4, 11)).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-used', 'x-ratelimit-resource', 'x-request-priority', 'x-concurrency-remaining']);
    expect(value(res.lines, 'content-type')).toBe('application/json');
    expect(JSON.parse(res.body.toString().replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '')).error.request_id).toBe(value(res.lines, 'x-request-id'));
  });

  it('a route whose body h3 sends keeps the request id and the CORS headers', async () => {
    const res = await exchange(gw.url, 'GET', '/v1/models', { authorization: `Bearer ${gw.key}`, origin: APP });
    expect(res.status).toBe(200);
    expect(names(res.lines).slice(0, 4)).toEqual(['access-control-allow-origin', 'vary', 'access-control-expose-headers', 'x-request-id']);
  });
});

describe('putHeader', () => {
  it('replaces a header set again in place (any case, the new spelling), as Node setHeader does, else appends', () => {
    const head = ['x-request-id', 'a', 'X-Request-Priority', '4'];
    putHeader(head, 'content-type', 'application/json');
    putHeader(head, 'X-Request-ID', 'b');
    putHeader(head, 'x-request-priority', '2');
    expect(head).toEqual(['X-Request-ID', 'b', 'x-request-priority', '2', 'content-type', 'application/json']);
  });

  it('treats two names as one header exactly when their lowercase forms are equal', () => {
    const names = ['x-request-id', 'X-Request-Id', 'x-request-iD', 'content-type', 'Content-Type', 'content-typE', 'x-routing-mode', 'content-length', 'x-routing-attempts', 'X-Request-Priority', 'x-\u212a', 'x-k', 'x-K', '\u212a-x', 'k-x', 'a', 'A', 'b', '@', '`'];
    for (const a of names) {
      for (const b of names) {
        const head = [a, '1'];
        putHeader(head, b, '2');
        expect(head.length === 2, `${a} ~ ${b}`).toBe(a.toLowerCase() === b.toLowerCase());
      }
    }
  });
});
