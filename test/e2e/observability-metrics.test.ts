import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { histogramOf, parsePrometheus, seriesOf, valueOf } from '../helpers/prometheus.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const METRICS_TOKEN = 'scrape-secret-4f1d2e';

/** Usage the fake upstream reports: input = the prompt's length, output = 3 (so every request differs). */
function usageOf(request: ReceivedRequest): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const messages = (request.json?.messages ?? []) as Array<{ content: unknown }>;
  const prompt = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('').length;
  return { prompt_tokens: prompt, completion_tokens: 3, total_tokens: prompt + 3 };
}

/** An OpenAI-compatible upstream: JSON or SSE (with the usage chunk when asked), usage from the prompt. */
function answer(request: ReceivedRequest): FakeReply {
  const usage = usageOf(request);
  if (request.json?.stream) {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1' };
    return {
      sse: chatSse([
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: 'one two three' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { ...base, choices: [], usage },
      ]),
    };
  }
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'm1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'one two three' }, finish_reason: 'stop' }],
      usage,
    },
  };
}

// Issue 11: after a known mix of requests, /metrics parses with a real Prometheus parser and
// every series holds the counts the mix implies; token sums equal the usage clients got.
describe('observability: /metrics after a known mix of requests', () => {
  let p1: FakeUpstream;
  let p2: FakeUpstream;
  let gw: SpawnedGateway;
  let limitedKey: string;
  const usageSeen = { p1: { input: 0, output: 0 }, p2: { input: 0, output: 0 } };

  const scrape = (token: string | null = METRICS_TOKEN) =>
    fetch(`${gw.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
  const openai = (apiKey = gw.key!) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
  const add = (provider: 'p1' | 'p2', input: number, output: number) => {
    usageSeen[provider].input += input;
    usageSeen[provider].output += output;
  };

  beforeAll(async () => {
    p1 = await startFakeUpstream(answer);
    p2 = await startFakeUpstream(answer);
    const model = { id: 'm1', pricing: { input: 2, output: 4 } };
    gw = await spawnGateway({
      config: {
        providers: {
          p1: { plugin: 'openai', baseURL: `${p1.url}/v1`, apiKey: 'x', models: [model], priority: 1 },
          p2: { plugin: 'openai', baseURL: `${p2.url}/v1`, apiKey: 'x', models: [model], priority: 2 },
        },
        // One failure opens a circuit (so the mix leaves one open); retries are quick.
        routing: { retry: { baseMs: 10, maxMs: 50 }, breaker: { failureThreshold: 1, cooldownMs: 600_000 } },
        // A tiny default limit: /metrics must not be subject to it.
        limits: { default: 2 },
        metrics: { token: METRICS_TOKEN },
      },
    });
    const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--name', 'limited', '--rpm', '1', '--json']);
    limitedKey = (JSON.parse(String(created.stdout)) as { key: string }).key;
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await p1?.close();
    await p2?.close();
  });

  it('counts every request, attempt, fallback, limit, token and credit of the mix', { timeout: 60_000 }, async () => {
    // 1. Two JSON successes and one stream on p1 (Chat Completions).
    for (const content of ['first question', 'the second one']) {
      const done = await openai().chat.completions.create({ model: 'm1', messages: [{ role: 'user', content }] });
      add('p1', done.usage!.prompt_tokens, done.usage!.completion_tokens);
    }
    const stream = await openai().chat.completions.create({ model: 'm1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream it' }] });
    let streamed = '';
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) add('p1', chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
    }
    expect(streamed).toBe('one two three');
    // 2. An Anthropic Messages client, converted to Chat for p1.
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'm1', max_tokens: 50, messages: [{ role: 'user', content: 'from anthropic' }] });
    add('p1', message.usage.input_tokens, message.usage.output_tokens);
    // 3. A key limited to 1 request a minute: one success, then a 429 from the gateway's limiter.
    const ok = await openai(limitedKey).chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'limited' }] });
    add('p1', ok.usage!.prompt_tokens, ok.usage!.completion_tokens);
    await expect(openai(limitedKey).chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'too soon' }] })).rejects.toMatchObject({ status: 429 });
    // 4. A 4xx: a model nobody serves.
    await expect(openai().chat.completions.create({ model: 'nope/x', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });
    // 5. p1 answers 503: the request falls back to p2 (and p1's circuit opens).
    p1.setHandler(() => ({ status: 503, json: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } }));
    const viaP2 = await openai().chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'fall back' }] }).withResponse();
    expect(viaP2.response.headers.get('x-fallback-provider')).toBe('p2');
    add('p2', viaP2.data.usage!.prompt_tokens, viaP2.data.usage!.completion_tokens);

    // The scrape needs the token; it is never rate limited (the default limit is 2 a minute).
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape('wrong-token')).status).toBe(401);
    for (let i = 0; i < 4; i += 1) expect((await scrape()).status).toBe(200);
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const m = parsePrometheus(await res.text());

    const requests = (where: Record<string, string>) => valueOf(m, 'gateway_requests_total', where);
    expect(requests({ route: '/v1/chat/completions', status: '200', api_format: 'chat' })).toBe(5);
    expect(requests({ route: '/v1/messages', status: '200', api_format: 'messages' })).toBe(1);
    expect(requests({ route: '/v1/chat/completions', status: '429', api_format: 'chat' })).toBe(1);
    expect(requests({ route: '/v1/chat/completions', status: '404', api_format: 'chat' })).toBe(1);
    expect(requests({ route: '/metrics', status: '401' })).toBe(2);
    expect(requests({ route: '/metrics', status: '200' })).toBe(4);

    const attempts = (provider: string, outcome: string) => valueOf(m, 'gateway_upstream_attempts_total', { provider, model: 'm1', outcome });
    expect(attempts('p1', 'ok')).toBe(5);
    expect(attempts('p1', 'fallback')).toBe(1);
    expect(attempts('p2', 'ok')).toBe(1);
    expect(seriesOf(m, 'gateway_upstream_attempts_total', { outcome: 'error' })).toHaveLength(0);
    expect(seriesOf(m, 'gateway_upstream_attempts_total', { outcome: 'retry' })).toHaveLength(0);

    expect(seriesOf(m, 'gateway_fallbacks_total')).toEqual([{ labels: { from_provider: 'p1', to_provider: 'p2', reason: 'provider_unavailable' }, value: '1' }]);
    expect(seriesOf(m, 'gateway_rate_limited_total')).toEqual([{ labels: { resource: 'api_key' }, value: '1' }]);
    expect(valueOf(m, 'gateway_quota_exceeded_total')).toBe(0);
    expect(valueOf(m, 'gateway_circuit_open', { provider: 'p1', model: 'm1' })).toBe(1);
    expect(seriesOf(m, 'gateway_circuit_open', { provider: 'p2' })).toHaveLength(0);
    expect(valueOf(m, 'gateway_active_requests')).toBe(0); // at rest: the scrape does not count itself
    expect(m.get('gateway_batch_lines_total')?.type).toBe('COUNTER');

    const duration = (where: Record<string, string>) => histogramOf(m, 'gen_ai_server_request_duration_seconds', { gen_ai_operation_name: 'chat', ...where });
    expect(duration({ gen_ai_request_model: 'm1', gen_ai_provider_name: 'p1', error_type: '' }).count).toBe(5);
    expect(duration({ gen_ai_request_model: 'm1', gen_ai_provider_name: 'p2', error_type: '' }).count).toBe(1);
    // A key over its rate limit is refused before its body is read (issue 27 §1), so the model is not known.
    expect(duration({ gen_ai_request_model: '', error_type: 'rate_limit_exceeded' }).count).toBe(1);
    expect(duration({ gen_ai_request_model: '', error_type: 'model_not_found' }).count).toBe(1);
    expect(duration({}).sum).toBeGreaterThan(0);
    const ttft = histogramOf(m, 'gen_ai_server_time_to_first_token_seconds', { gen_ai_operation_name: 'chat', gen_ai_request_model: 'm1', gen_ai_provider_name: 'p1' });
    expect(ttft.count).toBe(1);
    expect(seriesOf(m, 'gen_ai_server_time_to_first_token_seconds_count')).toHaveLength(1);

    // Token sums equal the usage the clients were given.
    for (const provider of ['p1', 'p2'] as const) {
      const tokens = (type: string) => histogramOf(m, 'gen_ai_client_token_usage', { gen_ai_token_type: type, gen_ai_request_model: 'm1', gen_ai_provider_name: provider });
      expect(tokens('input')).toEqual({ count: provider === 'p1' ? 5 : 1, sum: usageSeen[provider].input });
      expect(tokens('output')).toEqual({ count: provider === 'p1' ? 5 : 1, sum: usageSeen[provider].output });
    }

    // Credits charged equal the ledger's, per provider and model.
    const ledger = fs
      .readFileSync(path.join(gw.dataDir, 'usage.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { provider: string; model: string; charged_credits: number });
    for (const provider of ['p1', 'p2']) {
      const charged = ledger.filter((e) => e.provider === provider && e.model === `${provider}/m1`).reduce((t, e) => t + e.charged_credits, 0);
      expect(charged).toBeGreaterThan(0);
      expect(valueOf(m, 'gateway_credits_charged_total', { provider, model: 'm1' })).toBeCloseTo(charged, 9);
    }

    // The client library's process metrics are there too.
    expect(m.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(m.get('nodejs_eventloop_lag_seconds')?.type).toBe('GAUGE');
  });
});
