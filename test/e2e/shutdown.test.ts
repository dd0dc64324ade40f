import http from 'node:http';
import http2 from 'node:http2';
import { describe, expect, it } from 'vitest';
import { h2Post, readAll } from '../helpers/http2-client.ts';
import { spawnGateway } from '../helpers/spawn-gateway.ts';

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight stream finish, stops accepting, flushes and exits 0', async () => {
    const gw = await spawnGateway({ config: { providers: { slow: { plugin: 'mock', chunkDelayMs: 100 } } } });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow/echo', stream: true, messages: [{ role: 'user', content: 'a b c d e f g h i j k l m n o' }] }),
    });
    expect(res.status).toBe(200);
    let streaming = true;
    const reading = res.text().finally(() => (streaming = false));
    await new Promise((r) => setTimeout(r, 150));
    const exit = gw.stop();
    // New connections are refused once the signal is handled (3-14 ms here, under a CPU hog too),
    // while the stream (1.5 s) still runs: polled on fresh connections rather than one look after 50 ms.
    const accepted = () =>
      new Promise<boolean>((resolve) => {
        const probe = http.get(`${gw.url}/health`, { agent: false }, (r) => {
          r.resume();
          resolve(true);
        });
        probe.on('error', () => resolve(false));
      });
    const deadline = Date.now() + 10_000;
    while ((await accepted()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(await accepted()).toBe(false);
    expect(streaming, 'the in-flight stream was still running when new connections were refused').toBe(true);
    const text = await reading;
    expect(text).toContain('data: [DONE]');
    expect(await exit).toBe(0);
  });

  it('on SIGTERM an HTTP/2 (h2c) session is told GOAWAY while its in-flight stream finishes, and the process exits 0', async () => {
    const gw = await spawnGateway({ config: { providers: { slow: { plugin: 'mock', chunkDelayMs: 100 } } } });
    const session = http2.connect(gw.url);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    session.on('error', () => undefined);
    const { stream, headers } = h2Post(session, '/v1/chat/completions', gw.key!, { model: 'slow/echo', stream: true, messages: [{ role: 'user', content: 'a b c d e f g h i j k l m n o' }] });
    expect((await headers)[':status']).toBe(200);
    let streaming = true;
    const reading = readAll(stream).finally(() => (streaming = false));
    const exit = gw.stop();
    await goaway;
    expect(streaming, 'the in-flight stream was still running when the session was told GOAWAY').toBe(true);
    expect(await reading).toContain('data: [DONE]');
    expect(await exit).toBe(0);
  });
});
