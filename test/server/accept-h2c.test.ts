import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptH2c } from '../../src/server/accept-h2c.ts';
import { pumpBody } from '../helpers/pump-body.ts';
import { until, untilStill } from '../helpers/until.ts';

const MB = 1024 * 1024;

/** A plain node:http server with acceptH2c on its port; `onRequest` sees each request (HTTP/1.1 or HTTP/2). */
async function serve(onRequest: http.RequestListener, options: http.ServerOptions = {}, h2: Parameters<typeof acceptH2c>[2] = undefined): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(options, onRequest);
  acceptH2c(server, onRequest, h2);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

describe('acceptH2c', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it('an HTTP/1.1 upload keeps its backpressure: a body nobody reads stops being read from the socket', { timeout: 60_000 }, async () => {
    let held: http.IncomingMessage | undefined;
    // A small high-water mark, so the first bytes the sniffer took (head and some body) already fill the request's buffer.
    const { server, port } = await serve(
      (req, res) => {
        held = req;
        req.once('end', () => res.end('ok'));
      },
      { highWaterMark: 1024 },
    );
    const total = 64 * MB;
    const client = net.connect(port, '127.0.0.1');
    close = () => {
      client.destroy();
      server.close();
      server.closeAllConnections();
    };
    const piece = Buffer.alloc(MB, 120);
    // The head and the first MB in one write: the first read on the server holds the head and body bytes.
    client.write(Buffer.concat([Buffer.from(`POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: ${total}\r\n\r\n`), piece]));
    pumpBody(client, piece, total, MB);
    const req = await until('the request', async () => held);
    // Nothing reads the body: the server stops reading once the request's and the kernel's buffers are full.
    const stalled = await untilStill('the server to stop reading, or to read on', () => req.socket.bytesRead, total / 2);
    expect(stalled).toBeLessThan(16 * MB);
    // Read now, the whole body arrives in order and the answer comes back.
    let got = 0;
    req.on('data', (chunk: Buffer) => (got += chunk.length));
    const answer = await new Promise<string>((resolve) => client.on('data', (d: Buffer) => resolve(d.toString())));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(got).toBe(total);
  });

  it('a request whose first bytes come one at a time is HTTP/1.1; the preface is HTTP/2', async () => {
    const { server, port } = await serve((req, res) => res.end(`v${req.httpVersion}`));
    const h2 = http2.connect(`http://127.0.0.1:${port}`);
    const client = net.connect(port, '127.0.0.1');
    close = () => {
      h2.destroy();
      client.destroy();
      server.close();
      server.closeAllConnections();
    };
    const stream = h2.request({ ':path': '/' });
    let text = '';
    stream.on('data', (d: Buffer) => (text += d.toString()));
    await new Promise((resolve) => stream.on('end', resolve));
    expect(text).toBe('v2.0');

    const head = 'GET / HTTP/1.1\r\nhost: x\r\n\r\n';
    client.write(head.slice(0, 1));
    await until('the first byte sent', async () => (client.bytesWritten === 1 ? true : undefined));
    client.write(head.slice(1));
    const answer = await new Promise<string>((resolve) => client.on('data', (d: Buffer) => resolve(d.toString())));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/v1\.1$/);
  });

  it("resets an HTTP/2 stream whose request is not in whole after the server's requestTimeout, as HTTP/1.1 is answered 408", async () => {
    let read = 0;
    // The handler reads the body as it comes and answers at its end, as the gateway's routes do.
    const { server, port } = await serve((req, res) => {
      req.on('data', (chunk: Buffer) => (read += chunk.length));
      req.on('end', () => res.end('ok'));
    });
    server.requestTimeout = 500;
    const h2 = http2.connect(`http://127.0.0.1:${port}`);
    close = () => {
      h2.destroy();
      server.close();
      server.closeAllConnections();
    };
    h2.on('error', () => undefined);
    // A body trickled a byte at a time, often enough to keep the session from idling.
    const trickling = h2.request({ ':method': 'POST', ':path': '/', 'content-length': '1000' });
    trickling.on('error', () => undefined);
    const timer = setInterval(() => trickling.write('x'), 100);
    // A request with no body, answered at once, and one whose body comes whole: neither is reset.
    const quick = h2.request({ ':path': '/' });
    quick.resume();
    const whole = h2.request({ ':method': 'POST', ':path': '/', 'content-length': '3' });
    whole.end('abc');
    whole.resume();
    try {
      const closed = await Promise.race([
        new Promise<number>((resolve) => trickling.on('close', () => resolve(trickling.rstCode ?? -1))),
        new Promise<string>((resolve) => setTimeout(() => resolve('still open after 3 s'), 3000)),
      ]);
      expect(closed).toBe(http2.constants.NGHTTP2_CANCEL);
    } finally {
      clearInterval(timer);
    }
    expect(read).toBeGreaterThan(3);
    expect(quick.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(whole.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
  });

  it('forgets a connection that closes before its first bytes say which protocol (a TCP health check, a port scan)', async () => {
    const { server, port } = await serve((_req, res) => res.end('ok'));
    close = () => {
      server.close();
      server.closeAllConnections();
    };
    const seen: WeakRef<net.Socket>[] = [];
    server.on('connection', (socket: net.Socket) => seen.push(new WeakRef(socket)));
    for (let i = 0; i < 20; i += 1) {
      const client = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => client.once('connect', resolve));
      client.destroy();
    }
    await until('the server to see every connection closed', async () => (seen.length === 20 && (await connectionsOf(server)) === 0 ? true : undefined));
    v8.setFlagsFromString('--expose_gc');
    const gc = vm.runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i += 1) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Nothing of the gateway's should hold a closed socket: before, the sniffer's 'undecided' set kept every one.
    expect(seen.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });

  it("tells HTTP/2 clients it takes 128 streams at once on a session (SETTINGS_MAX_CONCURRENT_STREAMS; Node's default is no limit)", async () => {
    const { server, port } = await serve((_req, res) => res.end('ok'));
    const h2 = http2.connect(`http://127.0.0.1:${port}`);
    close = () => {
      h2.destroy();
      server.close();
      server.closeAllConnections();
    };
    await new Promise((resolve) => h2.once('remoteSettings', resolve));
    expect(h2.remoteSettings.maxConcurrentStreams).toBe(128);
  });

  it('refuses a stream past the cap (REFUSED_STREAM, which a client may retry) while the streams within it are served', async () => {
    const held: http.ServerResponse[] = [];
    const { server, port } = await serve((_req, res) => held.push(res), {}, { maxConcurrentStreams: 4 });
    const h2 = http2.connect(`http://127.0.0.1:${port}`);
    close = () => {
      h2.destroy();
      server.close();
      server.closeAllConnections();
    };
    const outcome = (stream: http2.ClientHttp2Stream) =>
      new Promise<{ status: number | undefined; rstCode: number | undefined }>((resolve) => {
        let status: number | undefined;
        stream.on('response', (headers) => (status = headers[':status']));
        stream.on('error', () => undefined);
        stream.resume();
        stream.on('close', () => resolve({ status, rstCode: stream.rstCode }));
      });
    // Asked at once, before the server's SETTINGS arrive: the client cannot know the cap yet, so it sends all six.
    const ends = Array.from({ length: 6 }, () => outcome(h2.request({ ':path': '/' })));
    await until('four requests held', async () => (held.length === 4 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(held).toHaveLength(4);
    expect(h2.remoteSettings.maxConcurrentStreams).toBe(4);
    for (const res of held) res.end('ok');
    const results = await Promise.all(ends);
    expect(results.filter((r) => r.status === 200 && r.rstCode === http2.constants.NGHTTP2_NO_ERROR)).toHaveLength(4);
    expect(results.filter((r) => r.status === undefined && r.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM)).toHaveLength(2);
    // The session goes on: a request within the cap is served.
    held.length = 0;
    const next = outcome(h2.request({ ':path': '/' }));
    await until('the next request', async () => held[0]);
    held[0].end('ok');
    expect(await next).toEqual({ status: 200, rstCode: http2.constants.NGHTTP2_NO_ERROR });
  });
});

function connectionsOf(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}
