import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MB = 1024 * 1024;

/**
 * An upstream that answers far more than any answer: a non-streamed body of 80 MB, a stream whose
 * second record is 80 MB long. It notes whether each answer was sent whole or the gateway hung up.
 */
async function startHugeUpstream() {
  const ends: Array<'whole' | 'cut'> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const stream = /"stream"\s*:\s*true/.test(body);
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.on('close', () => ends.push(res.writableFinished ? 'whole' : 'cut'));
      if (stream) res.write('data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}\n\n');
      res.write(stream ? 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"' : '{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"');
      const chunk = Buffer.alloc(MB, 'a');
      let sent = 0;
      const pump = (): void => {
        while (sent < 80) {
          sent += 1;
          if (res.destroyed) return;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end(stream ? '"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' : '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}');
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ends, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('an upstream answer larger than the gateway reads is a 502, not held in memory', () => {
  let upstream: Awaited<ReturnType<typeof startHugeUpstream>>;
  let gw: SpawnedGateway;
  const dir = tempDir('gw-answer-bounds-');

  beforeAll(async () => {
    upstream = await startHugeUpstream();
    const configFile = writeConfig(dir, {
      providers: { big: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', models: [{ id: 'm', pricing: { input: 1, output: 1 } }] } },
    });
    gw = await spawnGateway({ configFile, dataDir: path.join(dir, 'data') });
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
  });

  const ask = (stream: boolean) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'big/m', stream, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('a non-streamed answer past 64 MB: 502 provider_error naming the bound, and the upstream is hung up on', async () => {
    const response = await ask(false);
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('provider_error');
    expect(body.error.message).toContain(`${64 * MB} bytes`);
    expect(upstream.ends.at(-1)).toBe('cut');
  });

  it('a stream record past 64 MB: the records before it, then an error event; the upstream is hung up on', async () => {
    const response = await ask(true);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"content":"Hi"');
    expect(text).toContain('provider_error');
    expect(text).toContain('stream record larger than');
    expect(text.length).toBeLessThan(64 * 1024);
    expect(upstream.ends.at(-1)).toBe('cut');
  });
});
