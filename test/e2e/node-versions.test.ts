import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { execa } from 'execa';
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMp3 } from '../../plugins/mock/mp3.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { h2Post, readAll, readUntil, waitFor } from '../helpers/http2-client.ts';
import { chatCompletion, chatStream } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { pumpBody } from '../helpers/pump-body.ts';
import { until, untilStill } from '../helpers/until.ts';

const MB = 1024 * 1024;

/**
 * Users run Node 22 and 24; CI and dev boxes run 20. `.ci/run` installs Node 22 and 24 from the
 * npm registry and lists them in GATEWAY_TEST_NODE_BINS (colon-separated); without it this
 * suite runs on the current Node only.
 */
const binaries = (process.env.GATEWAY_TEST_NODE_BINS ?? '').split(':').filter(Boolean);
const nodes = binaries.length > 0 ? binaries : [process.execPath];

describe.each(nodes)('the gateway under %s', (binary) => {
  let gw: SpawnedGateway;
  let slow: FakeUpstream;
  let held: FakeUpstream;
  let version: string;

  beforeAll(async () => {
    version = String((await execa(binary, ['--version'])).stdout).trim();
    slow = await startFakeUpstream(() => ({ sse: chatStream(Array.from({ length: 200 }, (_, i) => `w${i} `)), delayMs: 20 }));
    held = await startFakeUpstream(() => ({ json: chatCompletion('held') }));
    gw = await spawnGateway({
      nodeBinary: binary,
      config: { logging: { requests: true }, providers: { mock: { plugin: 'mock' }, slow: { plugin: 'openai', baseURL: `${slow.url}/v1`, apiKey: 'x', models: ['m1'] },
          held: { plugin: 'openai', baseURL: `${held.url}/v1`, apiKey: 'x', models: ['m1'] },
        },
      },
    });
  });
  afterAll(async () => {
    expect(await gw.stop()).toBe(0);
    await slow?.close();
    await held?.close();
  });

  it('serves the three formats with the SDK stream helpers', async () => {
    expect(version).toMatch(/^v\d+\.\d+\.\d+$/);
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const chat = await openai.chat.completions.stream({ model: 'mock/echo', messages: [{ role: 'user', content: 'chat on node' }] }).finalChatCompletion();
    expect(chat.choices[0].message.content).toBe('chat on node');
    const response = await openai.responses.stream({ model: 'mock/echo', input: 'responses on node' }).finalResponse();
    const text = response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => (part.type === 'output_text' ? part.text : '')).join('');
    expect(text).toBe('responses on node');
    expect(response.status).toBe('completed');
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
    const message = await anthropic.messages.stream({ model: 'mock/echo', max_tokens: 100, messages: [{ role: 'user', content: 'messages on node' }] }).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'messages on node' })]);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('passes a Chat stream through to its [DONE]', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', stream: true, messages: [{ role: 'user', content: 'done?' }] }),
    });
    expect((await res.text()).trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it("speaks HTTP/2 with prior knowledge (node's http2 compat objects on this Node): a Chat stream to [DONE], a reset stream is client_closed", async () => {
    const session = http2.connect(gw.url);
    try {
      const streamed = h2Post(session, '/v1/chat/completions', gw.key!, { model: 'mock/echo', stream: true, messages: [{ role: 'user', content: 'h2?' }] });
      const head = await streamed.headers;
      expect([head[':status'], head.connection]).toEqual([200, undefined]);
      expect((await readAll(streamed.stream)).trimEnd().endsWith('data: [DONE]')).toBe(true);
      const cancelled = h2Post(session, '/v1/chat/completions', gw.key!, { model: 'slow/m1', stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const requestId = String((await cancelled.headers)['x-request-id']);
      await readUntil(cancelled.stream, 'w3 ');
      cancelled.stream.close(http2.constants.NGHTTP2_CANCEL);
      const lineOf = () => gw.stdout().split('\n').find((line) => line.includes(`"request_id":"${requestId}"`));
      await waitFor(() => lineOf() !== undefined, 10_000);
      expect(JSON.parse(lineOf()!)).toMatchObject({ status: 499, error_code: 'client_closed' });
      expect(gw.stderr()).not.toMatch(/UnsupportedWarning/);
    } finally {
      session.close();
    }
  });

  // accept-h2c hands an HTTP/1.1 socket to Node's own http code through stream internals
  // (read(0), emit('data')); should a Node major treat them otherwise, llhttp's pause() stops
  // nothing and an upload the gateway reads slower than it arrives piles up in memory
  // (docs/limits.md). Every route reads its body at once (or answers and drains it), so the body
  // nobody reads is a pipelined request's: a GET /health queued behind a Chat request whose
  // upstream holds its answer, so Node neither answers it nor drains its body until then.
  it('stops reading an HTTP/1.1 body nobody reads (backpressure through the h2c sniffer on this Node)', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    held.setHandler(async () => {
      await released;
      return { json: chatCompletion('held') };
    });
    const total = 64 * MB;
    const chat = JSON.stringify({ model: 'held/m1', messages: [{ role: 'user', content: 'hold' }] });
    const client = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
    let answers = '';
    client.on('data', (d: Buffer) => (answers += d.toString('latin1')));
    try {
      const piece = Buffer.alloc(MB, 120);
      // Both heads and the first MB of the unread body in one write, so the gateway's first read holds body bytes.
      client.write(
        Buffer.concat([
          Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(chat)}\r\n\r\n${chat}`),
          Buffer.from(`GET /health HTTP/1.1\r\nhost: x\r\ncontent-length: ${total}\r\n\r\n`),
          piece,
        ]),
      );
      const sent = pumpBody(client, piece, total, MB);
      await until('the Chat request upstream', async () => (held.requests.length > 0 ? true : undefined));
      // The client's writes stop draining once the gateway's request buffer and both kernels' buffers are full.
      const stalled = await untilStill('the gateway to stop reading, or to read on', sent, total / 2, 10);
      console.info(`${version}: ${Math.round(stalled / MB)} MB of the ${total / MB} MB nobody reads left the client${stalled > total / 2 ? ', read on by the gateway' : ', then its writes stalled'}`);
      expect(stalled).toBeLessThan(total / 2);
      // Once the first answer goes out, the second follows and Node reads (and drops) the rest of the body.
      release();
      await until('both answers', async () => ((answers.match(/HTTP\/1\.1 200/g) ?? []).length === 2 ? true : undefined));
      await until('the whole body sent', async () => (sent() >= total && client.writableLength === 0 ? true : undefined));
      expect(answers).toContain('"held"');
    } finally {
      release();
      client.destroy();
      held.setHandler(() => ({ json: chatCompletion('held') }));
    }
  });

  it('speaks MP3 from mock/tts (the pure-JS encoder runs on this Node)', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const mp3 = Buffer.from(await (await openai.audio.speech.create({ model: 'mock/tts', input: 'mp3 on node', voice: 'alloy' })).arrayBuffer());
    const info = readMp3(mp3);
    expect(info?.comment).toBe('mp3 on node');
    expect(info?.durationSeconds).toBeGreaterThan(0.6);
  });
});
