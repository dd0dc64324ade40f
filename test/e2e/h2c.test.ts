/**
 * HTTP/2 over cleartext with prior knowledge on the gateway's one port, beside HTTP/1.1: the AWS
 * SDK's BedrockRuntimeClient with its DEFAULT request handler (NodeHttp2Handler, HTTP/2 only; it
 * failed with 'Protocol error' when the port spoke HTTP/1.1 alone) for InvokeModel,
 * InvokeModelWithResponseStream (Bedrock's binary event stream) and CountTokens, and node:http2's
 * own client for Chat Completions JSON and SSE, and for a client that cancels its stream midway
 * (the upstream is released, the request logged client_closed 499).
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { h2Post, readAll, readUntil, waitFor } from '../helpers/http2-client.ts';
import { chatStream } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;

const ASK = [{ role: 'user' as const, content: 'Say hi' }];
const textOf = (message: Json) => message.content.filter((b: Json) => b.type === 'text').map((b: Json) => b.text).join('');

describe('HTTP/2 with prior knowledge (h2c) on the gateway port', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let slow: FakeUpstream;
  let gw: SpawnedGateway;
  let aws: any;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: 'Hi from Chat.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } }, finalText: 'Hi from Claude.' });
    slow = await startFakeUpstream(() => ({ sse: chatStream(Array.from({ length: 200 }, (_, i) => `w${i} `)), delayMs: 20 }));
    gw = await spawnGateway({
      config: {
        // Not the default (128): the setting must reach the listener's HTTP/2 side.
        server: { maxConcurrentStreams: 64 },
        logging: { requests: true },
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, capabilities: ['streaming', 'thinking'] }] },
          slow: { plugin: 'openai', baseURL: `${slow.url}/v1`, apiKey: 'x', models: ['m1'] },
        },
      },
    });
    aws = await clientModule('@aws-sdk/client-bedrock-runtime');
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages, slow]) await fake?.close();
  });

  describe("the AWS SDK's BedrockRuntimeClient with its default request handler", () => {
    const runtime = () => new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, token: { token: gw.key }, authSchemePreference: ['httpBearerAuth'], maxAttempts: 1 });
    const invokeBody = (body: Json) => new TextEncoder().encode(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 256, ...body }));

    it('speaks HTTP/2 only (the handler that needs h2c)', () => {
      expect(runtime().config.requestHandler.constructor.name).toBe('NodeHttp2Handler');
    });

    it.each([
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Hi from Claude.'],
      ['oc/gpt-4o-mini', 'Hi from Chat.'],
    ])('InvokeModel on %s answers the Messages body', async (modelId, said) => {
      const answer = await runtime().send(new aws.InvokeModelCommand({ modelId, contentType: 'application/json', body: invokeBody({ messages: ASK }) }));
      expect(textOf(JSON.parse(new TextDecoder().decode(answer.body)))).toBe(said);
    });

    it.each([
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Hi from Claude.'],
      ['oc/gpt-4o-mini', 'Hi from Chat.'],
    ])('InvokeModelWithResponseStream on %s: the event stream carries the Messages events', async (modelId, said) => {
      const answer = await runtime().send(new aws.InvokeModelWithResponseStreamCommand({ modelId, contentType: 'application/json', body: invokeBody({ messages: ASK }) }));
      const events: Json[] = [];
      for await (const part of answer.body) events.push(JSON.parse(new TextDecoder().decode(part.chunk.bytes)));
      expect(events[0].type).toBe('message_start');
      expect(events.at(-1)!.type).toBe('message_stop');
      const text = events.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta').map((e) => e.delta.text).join('');
      expect(text).toBe(said);
    });

    it('CountTokens answers inputTokens, as /v1/messages/count_tokens counts it', async () => {
      const request = { messages: [{ role: 'user', content: 'Weather in Paris? Answer in one word.' }] };
      const answer = await runtime().send(new aws.CountTokensCommand({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', input: { invokeModel: { body: invokeBody(request) } } }));
      const direct = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...request, model: 'ant/claude-sonnet-4-5' }) });
      expect(answer.inputTokens).toBe(((await direct.json()) as Json).input_tokens);
      expect(answer.inputTokens).toBeGreaterThan(0);
    });
  });

  describe("node:http2's client", () => {
    let session: http2.ClientHttp2Session;
    beforeAll(() => {
      session = http2.connect(gw.url);
    });
    afterAll(() => session?.close());

    const post = (path: string, body: Json) => h2Post(session, path, gw.key!, body);

    it('is told the server.maxConcurrentStreams of the config in the SETTINGS', async () => {
      if (!session.remoteSettings.maxConcurrentStreams || session.remoteSettings.maxConcurrentStreams > 64) await new Promise((resolve) => session.once('remoteSettings', resolve));
      expect(session.remoteSettings.maxConcurrentStreams).toBe(64);
    });

    it('Chat Completions JSON', async () => {
      const { stream, headers } = post('/v1/chat/completions', { model: 'oc/gpt-4o-mini', messages: ASK });
      expect((await headers)[':status']).toBe(200);
      const answer = JSON.parse(await readAll(stream)) as Json;
      expect(answer.choices[0].message.content).toBe('Hi from Chat.');
      expect(chat.rejections).toEqual([]);
    });

    it('Chat Completions streamed: SSE to [DONE], no connection-specific header', async () => {
      const { stream, headers } = post('/v1/chat/completions', { model: 'ant/claude-sonnet-4-5', stream: true, messages: ASK });
      const head = await headers;
      expect(head[':status']).toBe(200);
      expect(head['content-type']).toMatch(/^text\/event-stream/);
      expect(head.connection).toBeUndefined();
      const frames = (await readAll(stream)).split('\n\n').filter((f) => f.startsWith('data: '));
      expect(frames.at(-1)).toBe('data: [DONE]');
      const text = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)) as Json).map((c) => c.choices[0]?.delta?.content ?? '').join('');
      expect(text).toBe('Hi from Claude.');
      expect(gw.stderr()).not.toMatch(/UnsupportedWarning|connection header/i);
    });

    it('a client that cancels its stream midway releases the upstream, and the request is logged client_closed', async () => {
      slow.closedAt.length = 0;
      const { stream, headers } = post('/v1/chat/completions', { model: 'slow/m1', stream: true, messages: ASK });
      const head = await headers;
      const requestId = String(head['x-request-id']);
      await readUntil(stream, 'w3 ');
      stream.close(http2.constants.NGHTTP2_CANCEL);
      await waitFor(() => slow.closedAt.length > 0, 3000);
      const lineOf = () => gw.stdout().split('\n').find((line) => line.includes(`"request_id":"${requestId}"`));
      await waitFor(() => lineOf() !== undefined, 10_000);
      expect(JSON.parse(lineOf()!)).toMatchObject({ status: 499, error_code: 'client_closed' });
      // The session outlives the cancelled stream.
      const next = post('/v1/chat/completions', { model: 'oc/gpt-4o-mini', messages: ASK });
      expect((await next.headers)[':status']).toBe(200);
      await readAll(next.stream);
    });
  });

  it('HTTP/1.1 on the same port as before', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'oc/gpt-4o-mini', messages: ASK }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).choices[0].message.content).toBe('Hi from Chat.');
  });
});
