import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.ts';
import { GatewayMetrics, Observer, type RecordConsumer, type RequestRecord } from '../../src/observability/index.ts';
import { parsePrometheus, seriesOf, valueOf } from '../helpers/prometheus.ts';

function setup() {
  let active = 0;
  const metrics: GatewayMetrics = new GatewayMetrics({ active: () => active, circuits: () => [{ provider: 'a', model: 'a/m', openedAt: 1 }], processMetrics: false });
  const emitted: RequestRecord[] = [];
  const consumer: RecordConsumer = { consume: (r) => emitted.push(r) };
  const observer = new Observer({ metrics, consumers: [consumer] });
  const scrape = async () => {
    active = observer.active;
    return parsePrometheus(await metrics.render());
  };
  return { observer, metrics, emitted, scrape };
}

const attempts = (m: ReturnType<typeof parsePrometheus>) =>
  seriesOf(m, 'gateway_upstream_attempts_total').map((s) => `${s.labels?.provider}/${s.labels?.model} ${s.labels?.outcome} ${s.value}`).sort();

describe('request records and attempt outcomes', () => {
  it('calls a failure followed by the same model a retry, by another model a fallback, and the last one an error', async () => {
    const { observer, scrape } = setup();
    const record = observer.begin('req_1', '/v1/chat/completions', 'chat', 'chat');
    record.attemptStarted('a', 'a/m', 'm');
    record.attemptFailed('a', 'a/m', 'provider_error');
    record.attemptStarted('a', 'a/m', 'm');
    record.attemptFailed('a', 'a/m', 'provider_error');
    record.attemptStarted('b', 'b/m', 'm');
    record.attemptFailed('b', 'b/m', 'provider_unavailable');
    observer.fail(record, new GatewayError('provider_unavailable', 'down'));
    observer.end(record, 503);
    expect(attempts(await scrape())).toEqual(['a/m fallback 1', 'a/m retry 1', 'b/m error 1']);
    expect(record.attempts).toBe(3);
  });

  it('records a fallback from the first failed model when another one serves', async () => {
    const { observer, scrape, emitted } = setup();
    const record = observer.begin('req_1', '/v1/images/generations', 'images', 'images');
    record.attemptStarted('a', 'a/img', 'img');
    record.attemptFailed('a', 'a/img', 'provider_timeout');
    record.attemptStarted('b', 'b/img', 'img');
    record.attemptSucceeded('b', 'b/img');
    observer.end(record, 200);
    const m = await scrape();
    expect(attempts(m)).toEqual(['a/img fallback 1', 'b/img ok 1']);
    expect(valueOf(m, 'gateway_fallbacks_total', { from_provider: 'a', to_provider: 'b', reason: 'provider_timeout' })).toBe(1);
    expect(emitted[0].provider).toBe('b');
  });

  it('ignores the failure of a hedge race loser cancelled after the winner served', async () => {
    const { observer, scrape } = setup();
    const record = observer.begin('req_1', '/v1/chat/completions', 'chat', 'chat');
    record.attemptStarted('a', 'a/m', 'm');
    record.attemptStarted('b', 'b/m', 'm');
    record.attemptSucceeded('b', 'b/m');
    record.attemptFailed('a', 'a/m', 'bad_request');
    observer.end(record, 200);
    expect(attempts(await scrape())).toEqual(['b/m ok 1']);
  });

  it('records an upstream web search count as the charge reads it: a positive finite count, else none', () => {
    const { observer } = setup();
    const countOf = (webSearchRequests: number) => {
      const record = observer.begin('req_s', '/v1/messages', 'messages', 'messages');
      record.applySettlement({ usage: { inputTokens: 1, outputTokens: 1, webSearchRequests } }, undefined);
      return record.webSearchRequests;
    };
    expect(countOf(2)).toBe(2);
    expect(countOf(-3)).toBeUndefined();
    expect(countOf(0)).toBeUndefined();
    expect(countOf(Number.NaN)).toBeUndefined();
  });

  it('emits a record once, after its settlement, with usage and charge', async () => {
    const { observer, emitted, scrape } = setup();
    const record = observer.begin('req_1', '/v1/chat/completions', 'chat', 'chat');
    record.requestedModel = 'm';
    record.stream = true;
    record.firstByte();
    let settle!: () => void;
    record.settling = new Promise<void>((resolve) => (settle = resolve)).then(() =>
      record.applySettlement({ usage: { inputTokens: 12, outputTokens: 30 }, error: 'provider_error' }, { cost: 0.5, charged: 0.25 }),
    );
    record.attemptStarted('a', 'a/m', 'm');
    record.attemptSucceeded('a', 'a/m');
    observer.end(record, 200);
    observer.end(record, 200);
    expect(emitted).toHaveLength(0);
    expect(observer.active).toBe(1);
    settle();
    await record.settling;
    await Promise.resolve();
    expect(emitted).toHaveLength(1);
    expect(observer.active).toBe(0);
    expect(record).toMatchObject({ status: 200, errorCode: 'provider_error', inputTokens: 12, outputTokens: 30, costCredits: 0.5, chargedCredits: 0.25 });
    const m = await scrape();
    expect(valueOf(m, 'gateway_credits_charged_total', { provider: 'a', model: 'm' })).toBe(0.25);
    expect(valueOf(m, 'gen_ai_server_request_duration_seconds_count', { gen_ai_request_model: 'm', gen_ai_provider_name: 'a', error_type: 'provider_error' })).toBe(1);
    expect(valueOf(m, 'gen_ai_server_time_to_first_token_seconds_count', { gen_ai_request_model: 'm' })).toBe(1);
    expect(valueOf(m, 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'output' })).toBe(30);
  });

  it("counts the gateway's own 429s by resource, not a provider's, and quota refusals", async () => {
    const { observer, scrape } = setup();
    const refuse = (error: GatewayError) => {
      const record = observer.begin('r', '/v1/chat/completions', 'chat', 'chat');
      observer.fail(record, error);
      observer.end(record, error.status);
    };
    refuse(new GatewayError('rate_limit_exceeded', 'x', { details: { limit: 1, scope: 'user' } }));
    refuse(new GatewayError('rate_limit_exceeded', 'x', { details: { limit: 1, scope: 'ip' } }));
    refuse(new GatewayError('rate_limit_exceeded', 'x', { details: { max_concurrency: 2 } }));
    refuse(new GatewayError('rate_limit_exceeded', 'x', { details: { provider: 'a', upstream_status: 429 } }));
    refuse(new GatewayError('quota_exceeded', 'x'));
    const m = await scrape();
    expect(valueOf(m, 'gateway_rate_limited_total', { resource: 'user' })).toBe(1);
    expect(valueOf(m, 'gateway_rate_limited_total', { resource: 'ip' })).toBe(1);
    expect(valueOf(m, 'gateway_rate_limited_total', { resource: 'api_key' })).toBe(1);
    expect(valueOf(m, 'gateway_rate_limited_total')).toBe(3);
    expect(valueOf(m, 'gateway_quota_exceeded_total')).toBe(1);
    expect(valueOf(m, 'gateway_requests_total', { status: '429' })).toBe(5);
    expect(valueOf(m, 'gateway_circuit_open', { provider: 'a', model: 'm' })).toBe(1);
  });

  it('leaves GenAI series alone for other routes, and never labels an unknown model', async () => {
    const { observer, scrape } = setup();
    const health = observer.begin('r', '/health', '', '');
    observer.end(health, 200);
    const unknown = observer.begin('r', '/v1/chat/completions', 'chat', 'chat');
    unknown.requestedModel = 'free text the client made up';
    observer.fail(unknown, new GatewayError('model_not_found', 'no'));
    observer.end(unknown, 404);
    const m = await scrape();
    expect(valueOf(m, 'gateway_requests_total', { route: '/health', status: '200', api_format: '' })).toBe(1);
    expect(seriesOf(m, 'gen_ai_server_request_duration_seconds_count').map((s) => s.labels)).toEqual([
      { gen_ai_operation_name: 'chat', gen_ai_request_model: '', gen_ai_provider_name: '', error_type: 'model_not_found' },
    ]);
  });

  it('defines gateway_batch_lines_total for the batch executor', async () => {
    const { observer, scrape } = setup();
    observer.countBatchLine('ok');
    observer.countBatchLine('ok');
    observer.countBatchLine('error');
    const m = await scrape();
    expect(valueOf(m, 'gateway_batch_lines_total', { outcome: 'ok' })).toBe(2);
    expect(valueOf(m, 'gateway_batch_lines_total', { outcome: 'error' })).toBe(1);
  });
});
