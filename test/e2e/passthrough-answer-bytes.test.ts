/**
 * A same-format JSON answer goes to the client as the upstream wrote it: byte for byte when its
 * bytes are valid UTF-8 (the text the gateway read, encoded again, is the same bytes), and, when
 * they are not, the text the gateway read (each bad byte as U+FFFD), so a client's strict UTF-8
 * decoder never sees a byte the gateway could not read. Real CLI, raw upstream on node:http.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** Bytes of a Chat answer whose content is `content` (raw bytes inside the JSON string), spaced as a Python upstream writes it. */
function answerBytes(content: Buffer): Buffer {
  const before = Buffer.from('{\n  "id": "chatcmpl-1",\n  "object": "chat.completion",\n  "created": 1,\n  "model": "up",\n  "choices": [{"index": 0, "message": {"role": "assistant", "content": "');
  const after = Buffer.from('"}, "finish_reason": "stop"}],\n  "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}\n}\n');
  return Buffer.concat([before, content, after]);
}

describe('a passthrough JSON answer reaches the client byte for byte', () => {
  let upstream: http.Server;
  let gw: SpawnedGateway;
  let next: Buffer = Buffer.alloc(0);

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(next.length) });
        res.end(next);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    gw = await spawnGateway({ config: { providers: { up: { plugin: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', formats: ['chat'], models: ['up'] } } } });
  });
  afterAll(async () => {
    await gw?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  async function ask(): Promise<{ bytes: Buffer; length: string | null }> {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/up', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    return { bytes: Buffer.from(await res.arrayBuffer()), length: res.headers.get('content-length') };
  }

  it('valid UTF-8 (non-ASCII, emoji, the upstream\'s own spacing): the very bytes, and their length', async () => {
    next = answerBytes(Buffer.from('héllo wörld 😀 – ok'));
    const { bytes, length } = await ask();
    expect(bytes.equals(next)).toBe(true);
    expect(length).toBe(String(next.length));
  });

  it('bytes that are not UTF-8: the text the gateway read, each bad byte as U+FFFD, never the bad bytes', async () => {
    next = answerBytes(Buffer.from([0x61, 0xff, 0x62, 0xc3]));
    const { bytes, length } = await ask();
    expect(bytes.equals(answerBytes(Buffer.from('a\uFFFDb\uFFFD')))).toBe(true);
    expect(length).toBe(String(bytes.length));
  });
});
