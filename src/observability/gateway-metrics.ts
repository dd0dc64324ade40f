import { collectDefaultMetrics, Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily } from './metric-families.ts';
import { modelPart, providerPart, type RequestRecord } from './request-record.ts';
import { upstreamConnectionFamilies } from './upstream-connection-metrics.ts';
import type { AttemptOutcome, CircuitView, UpstreamConnectionView } from './types.ts';

/** Bucket bounds recommended by the OpenTelemetry GenAI semantic conventions. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

export interface GatewayMetricsOptions {
  /** Requests in flight now. */
  active: () => number;
  /** Circuits open now. */
  circuits: () => CircuitView[];
  /** Each provider's upstream connections (in use, waiting, refused); none when absent. */
  connections?: () => UpstreamConnectionView[];
  /** The client library's process metrics (CPU, memory, event loop, GC); default true. */
  processMetrics?: boolean;
}

/**
 * The gateway's Prometheus series (docs/observability.md lists them with their labels). Labels
 * are bounded: route patterns, status codes, error codes, catalog model and provider ids; the
 * requested model of a `model_not_found` is left out, and every family caps its series.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new CounterFamily('gateway_requests_total', 'HTTP requests answered, by route pattern, status and API format.', ['route', 'status', 'api_format']);
  readonly duration = new HistogramFamily(
    'gen_ai_server_request_duration_seconds',
    'Time from arrival to the end of the response (the last byte of a stream) of GenAI requests.',
    ['gen_ai_operation_name', 'gen_ai_request_model', 'gen_ai_provider_name', 'error_type'],
    DURATION_BUCKETS,
  );
  readonly ttft = new HistogramFamily(
    'gen_ai_server_time_to_first_token_seconds',
    'Time from arrival to the first streamed record sent to the client (streamed requests).',
    ['gen_ai_operation_name', 'gen_ai_request_model', 'gen_ai_provider_name'],
    TTFT_BUCKETS,
  );
  readonly tokens = new HistogramFamily(
    'gen_ai_client_token_usage',
    'Tokens used per request, as reported to the client (input and output).',
    ['gen_ai_token_type', 'gen_ai_request_model', 'gen_ai_provider_name'],
    TOKEN_BUCKETS,
  );
  readonly attempts = new CounterFamily('gateway_upstream_attempts_total', 'Upstream calls by outcome: ok, retry (same model again), fallback (another model next), error (the request ended).', [
    'provider',
    'model',
    'outcome',
  ]);
  readonly fallbacks = new CounterFamily('gateway_fallbacks_total', 'Requests served by another candidate than the first one tried.', ['from_provider', 'to_provider', 'reason']);
  readonly modelFallbacks = new CounterFamily('gateway_model_fallbacks_total', 'Requests served by a fallback, by the model that failed first and the model that served (config chains and requests\' own `models` lists).', [
    'from_provider',
    'from_model',
    'to_provider',
    'to_model',
  ]);
  readonly rateLimited = new CounterFamily('gateway_rate_limited_total', "Requests refused by the gateway's own rate limits, by the limited resource.", ['resource']);
  readonly quotaExceeded = new CounterFamily('gateway_quota_exceeded_total', 'Requests refused because the monthly token quota was used up.', []);
  readonly credits = new CounterFamily('gateway_credits_charged_total', 'Credits charged (1 credit = 0.001 USD).', ['provider', 'model']);
  readonly droppedTools = new CounterFamily('gateway_dropped_tools_total', "Hosted tools left out of requests because the serving upstream cannot run them (policy 'drop').", ['provider', 'tool']);
  readonly batchLines = new CounterFamily('gateway_batch_lines_total', 'Batch lines processed, by outcome.', ['outcome']);
  readonly active: GaugeFamily;
  readonly circuitOpen: GaugeFamily;
  private readonly statusText: string[] = [];

  constructor(options: GatewayMetricsOptions) {
    this.active = new GaugeFamily('gateway_active_requests', 'Clients\' requests in flight (streams until their last byte); admin procedures, the scrape and the dashboard\'s own calls are not counted.', [], (family) => family.child().set(options.active()));
    this.circuitOpen = new GaugeFamily('gateway_circuit_open', '1 while the circuit of a provider/model is open (calls skipped), else 0.', ['provider', 'model'], (family) => {
      family.setAll(0);
      for (const circuit of options.circuits()) family.child(circuit.provider, modelPart(circuit.model)).set(1);
    });
    for (const family of [
      this.duration,
      this.ttft,
      this.tokens,
      this.requests,
      this.attempts,
      this.fallbacks,
      this.modelFallbacks,
      this.rateLimited,
      this.quotaExceeded,
      this.credits,
      this.active,
      this.circuitOpen,
      this.batchLines,
      this.droppedTools,
    ]) {
      this.registry.registerMetric(family.asMetric());
    }
    for (const family of upstreamConnectionFamilies(options.connections ?? (() => []))) this.registry.registerMetric(family.asMetric());
    // Series without labels exist from the start (a counter at 0 is information).
    this.quotaExceeded.child();
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one finished request in every series it belongs to. */
  recordRequest(record: RequestRecord): void {
    this.requests.child(record.route, this.statusOf(record.status), record.apiFormat).inc();
    const errorCode = record.errorCode;
    if (errorCode === 'rate_limit_exceeded') {
      if (record.rateLimitScope !== undefined) this.rateLimited.child(record.rateLimitScope).inc();
    } else if (errorCode === 'quota_exceeded') this.quotaExceeded.child().inc();
    const operation = record.operation;
    if (operation === '') return;
    // An unknown model id is the client's free text: never a label value.
    const model = errorCode === 'model_not_found' ? '' : (record.requestedModel ?? '');
    const provider = record.provider ?? '';
    this.duration.child(operation, model, provider, errorCode ?? '').observe(record.durationMs / 1000);
    if (record.stream && record.ttfbMs !== undefined) this.ttft.child(operation, model, provider).observe(record.ttfbMs / 1000);
    if (record.inputTokens !== undefined) {
      this.tokens.child('input', model, provider).observe(record.inputTokens);
      this.tokens.child('output', model, provider).observe(record.outputTokens ?? 0);
    }
    if (record.chargedCredits !== undefined && record.model !== undefined) this.credits.child(provider, modelPart(record.model)).inc(record.chargedCredits);
    if (record.fallback) {
      const from = record.fallback.from;
      this.fallbacks.child(providerPart(from), provider, record.fallback.reason).inc();
      this.modelFallbacks.child(providerPart(from), modelPart(from), provider, record.model === undefined ? '' : modelPart(record.model)).inc();
    }
    if (record.droppedTools) for (const tool of record.droppedTools) this.droppedTools.child(provider, tool).inc();
  }

  countAttempt(provider: string, model: string, outcome: AttemptOutcome): void {
    this.attempts.child(provider, modelPart(model), outcome).inc();
  }

  countBatchLine(outcome: string): void {
    this.batchLines.child(outcome).inc();
  }

  /** The Prometheus text exposition of every series. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private statusOf(status: number): string {
    return (this.statusText[status] ??= String(status));
  }
}
