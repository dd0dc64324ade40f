import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatCompletion } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
}

const SERVER = 2;
const CLIENT = 3;

function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue) return value.arrayValue.values.map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue;
}

function attributes(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, valueOf(a.value)]));
}

/** A small OTLP/HTTP (JSON) receiver: every span it was sent. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close: () => Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
        const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const waitFor = async (check: () => boolean, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

// Issue 11: with OTEL_EXPORTER_OTLP_ENDPOINT set, a chat request yields a server span and a
// client span with the GenAI attributes, and the upstream receives a traceparent of the same trace.
describe('observability: OpenTelemetry traces over OTLP/HTTP', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let p1: FakeUpstream;
  let p2: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    p1 = await startFakeUpstream(() => ({ json: chatCompletion('Hello') }));
    p2 = await startFakeUpstream(() => ({ json: chatCompletion('Hello from p2') }));
    gw = await spawnGateway({
      config: {
        providers: {
          p1: { plugin: 'openai', baseURL: `${p1.url}/v1`, apiKey: 'x', models: ['m1'], priority: 1 },
          p2: { plugin: 'openai', baseURL: `${p2.url}/v1`, apiKey: 'x', models: ['m1'], priority: 2 },
        },
        routing: { retry: { baseMs: 10 } },
      },
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'gateway-under-test' },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await p1?.close();
    await p2?.close();
    await receiver?.close();
  });

  it('exports a server span and a client span per attempt with the GenAI attributes; the upstream gets the trace context', { timeout: 60_000 }, async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientParent = '00f067aa0ba902b7';
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0, defaultHeaders: { traceparent: `00-${traceId}-${clientParent}-01` } });
    const done = await openai.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0].message.content).toBe('Hello');

    await waitFor(() => receiver.spans.filter((s) => s.traceId === traceId).length >= 2, 'the spans of the first request');
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const server = spans.find((s) => s.kind === SERVER)!;
    const client = spans.find((s) => s.kind === CLIENT)!;
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.parentSpanId).toBe(clientParent);
    expect(attributes(server)).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.provider.name': 'p1',
      'gen_ai.usage.input_tokens': 5,
      'gen_ai.usage.output_tokens': 2,
    });
    expect(client.name).toBe('chat m1');
    expect(client.parentSpanId).toBe(server.spanId);
    expect(attributes(client)).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'p1',
      'gen_ai.request.model': 'm1',
      'gen_ai.response.model': 'm1',
      'gen_ai.usage.input_tokens': 5,
      'gen_ai.usage.output_tokens': 2,
      'gen_ai.response.finish_reasons': ['stop'],
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(p1.url).port),
    });
    // The upstream was called with the client span's context: same trace, the client span as parent.
    expect(p1.requests.at(-1)!.headers.traceparent).toBe(`00-${traceId}-${client.spanId}-01`);
  });

  it('marks a failed attempt with error.type and starts a trace when the client sent none', { timeout: 60_000 }, async () => {
    p1.setHandler(() => ({ status: 503, json: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } }));
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const done = await openai.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'hi again' }] });
    expect(done.choices[0].message.content).toBe('Hello from p2');
    const upstreamTrace = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(p2.requests.at(-1)!.headers.traceparent));
    expect(upstreamTrace).not.toBeNull();
    const traceId = upstreamTrace![1];
    await waitFor(() => receiver.spans.filter((s) => s.traceId === traceId).length >= 3, 'the spans of the fallback');
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.parentSpanId ?? '').toBe('');
    const clients = spans.filter((s) => s.kind === CLIENT);
    const failed = clients.find((s) => attributes(s)['gen_ai.provider.name'] === 'p1')!;
    const served = clients.find((s) => attributes(s)['gen_ai.provider.name'] === 'p2')!;
    expect(attributes(failed)).toMatchObject({ 'error.type': 'provider_unavailable', 'gen_ai.request.model': 'm1' });
    expect(attributes(served)['error.type']).toBeUndefined();
    expect(served.spanId).toBe(upstreamTrace![2]);
    expect(p1.requests.at(-1)!.headers.traceparent).toBe(`00-${traceId}-${failed.spanId}-01`);
  });
});
