import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatSse, splitPieces, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const base = { id: 'chatcmpl-up1', object: 'chat.completion.chunk', created: 1700000000, model: 'm1' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });

describe('openai plugin against a fake OpenAI-compatible upstream', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gw = await spawnGateway({
      config: {
        providers: {
          up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'upstream-secret-key', models: ['m1', 'm2'], timeouts: { firstByte: 800 } },
        },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('passes a non-stream request through, with the upstream model id and key', async () => {
    upstream.setHandler(() => ({
      json: {
        id: 'chatcmpl-up1', object: 'chat.completion', created: 1700000000, model: 'm1',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi there', refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      },
    }));
    const completion = await client.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'hello' }], temperature: 0.3 });
    expect(completion.choices[0].message.content).toBe('hi there');
    expect(completion.usage?.total_tokens).toBe(7);
    const received = upstream.requests[0];
    expect(received.path).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe('Bearer upstream-secret-key');
    expect(received.json?.model).toBe('m1');
    expect(received.json?.temperature).toBe(0.3);
    expect(received.json?.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('streams with usage, frames split at odd offsets', async () => {
    upstream.setHandler(() => ({
      sse: splitPieces(
        chatSse([
          chunk({ role: 'assistant', content: '', refusal: null }),
          chunk({ content: 'Hel' }),
          chunk({ content: 'lo!' }),
          chunk({}, 'stop'),
          { ...base, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } },
        ]),
        5,
      ),
    }));
    const stream = await client.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      usage = c.usage ?? usage;
    }
    expect(text).toBe('Hello!');
    expect(usage?.total_tokens).toBe(6);
  });

  it('asks upstream for usage but hides the usage chunk when the client did not ask', async () => {
    upstream.setHandler(() => ({
      sse: chatSse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'ok' }),
        chunk({}, 'stop'),
        { ...base, choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } },
      ]),
    }));
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const text = await res.text();
    expect(upstream.requests[0].json?.stream_options).toEqual({ include_usage: true });
    expect(text).not.toContain('"choices":[]');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('streams parallel tool calls that the stream helper assembles', async () => {
    upstream.setHandler(() => ({
      sse: chatSse([
        chunk({ role: 'assistant', content: null }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"tz":"CET"}' } }] }),
        chunk({}, 'tool_calls'),
        { ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } },
      ]),
    }));
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
    ];
    const final = await client.chat.completions.stream({ model: 'up/m1', messages: [{ role: 'user', content: 'weather and time' }], tools }).finalChatCompletion();
    const calls = final.choices[0].message.tool_calls ?? [];
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(calls.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(calls.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : null))).toEqual([{ city: 'Paris' }, { tz: 'CET' }]);
  });

  it('passes 429 on with Retry-After', async () => {
    upstream.setHandler(() => ({ status: 429, headers: { 'retry-after': '7' }, json: { error: { message: 'slow down', type: 'rate_limit_error' } } }));
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    const body = (await res.json()) as { error: { code: string; retry_after: number; request_id: string } };
    expect(body.error.code).toBe('rate_limit_exceeded');
    expect(body.error.retry_after).toBe(7);
    expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('an upstream 429 without Retry-After still reaches the client throttled as spec §8.1 says: Retry-After and error.retry_after', async () => {
    upstream.setHandler(() => ({ status: 429, json: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } } }));
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      // Its own model (m2): its retries open no circuit for the tests of m1 below.
      body: JSON.stringify({ model: 'up/m2', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = (await res.json()) as { error: { code: string; retry_after?: number } };
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', retry_after: 1 });
  });

  it('maps upstream 500 to 502 provider_error without leaking the upstream key', async () => {
    upstream.setHandler(() => ({ status: 500, json: { error: { message: 'boom with key sk-upstreamsecret123456' } } }));
    const error = await client.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.code).toBe('provider_error');
    expect(JSON.stringify(apiError.error)).not.toContain('sk-upstreamsecret');
  });

  it('maps a slow first byte to 504 provider_timeout', async () => {
    upstream.setHandler(() => ({ fault: 'hang' }));
    const started = Date.now();
    const error = (await client.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(504);
    expect(error.code).toBe('provider_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('maps an upstream that cannot be reached to 503 provider_unavailable', async () => {
    const dead = await spawnGateway({ config: { providers: { up: { plugin: 'openai', baseURL: 'http://127.0.0.1:1/v1', apiKey: 'x', models: ['m1'] } } } });
    try {
      const c = new OpenAI({ baseURL: `${dead.url}/v1`, apiKey: dead.key!, maxRetries: 0 });
      const error = (await c.chat.completions.create({ model: 'up/m1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error.status).toBe(503);
      expect(error.code).toBe('provider_unavailable');
      // Which provider, as an upstream's own refusal says (a wrong baseURL, a local server not started): "The provider could not be reached." before.
      expect(error.message).toBe("503 The provider 'up' could not be reached.");
      expect((error.error as { details?: unknown }).details).toEqual({ provider: 'up' });
    } finally {
      await dead.stop();
    }
  });
});
