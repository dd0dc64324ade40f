import type { GatewayError } from '../errors/index.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { RequestRecord, type AttemptSink, type RecordConsumer } from './request-record.ts';
import { ActivityWindow, type ActivitySnapshot } from './activity-window.ts';
import type { AttemptOutcome, CircuitView } from './types.ts';

/** The tracing side of the observer (OpenTelemetry, loaded only when configured). */
export interface RequestTracer {
  /** Starts the server span; `traceparent`/`tracestate` are the client's W3C headers. */
  startRequest(record: RequestRecord, traceparent: string | undefined, tracestate: string | undefined): void;
  attemptStarted(record: RequestRecord, provider: string, model: string, upstreamModel: string): void;
  attemptDispatched(record: RequestRecord): void;
  attemptEnded(record: RequestRecord, provider: string, model: string, errorCode: string | undefined): void;
  endRequest(record: RequestRecord): void;
  /** Exports what is pending and stops. */
  close(): Promise<void>;
}

export interface ObserverOptions {
  /** Absent when `metrics.enabled` is false. */
  metrics?: GatewayMetrics;
  /** The live window behind `activity()` (one is made when absent). */
  window?: ActivityWindow;
  /** The circuits open now (from the router). */
  circuits?: () => CircuitView[];
  tracer?: RequestTracer;
  consumers?: RecordConsumer[];
  /** Reports a failure inside observability (never thrown at a request). */
  onError?: (message: string, error: unknown) => void;
}

/**
 * The observability of a running gateway: hands out one RequestRecord per request, counts
 * attempts as the router makes them, and emits each record once at the end to the metrics,
 * the tracer and the consumers. Off the request's critical path where it can be: the record
 * is emitted after the response (a stream's after its last byte).
 */
export class Observer implements AttemptSink {
  /** Requests begun and not yet emitted. */
  active = 0;
  /** Of those, operators' requests (admin procedures, scrapes) and the dashboard's own calls. */
  private activeInternal = 0;
  readonly metrics: GatewayMetrics | undefined;
  readonly tracer: RequestTracer | undefined;
  private readonly consumers: RecordConsumer[];
  private readonly window: ActivityWindow;

  constructor(private readonly options: ObserverOptions = {}) {
    this.metrics = options.metrics;
    this.tracer = options.tracer;
    this.window = options.window ?? new ActivityWindow();
    this.consumers = [this.window, ...(options.consumers ?? [])];
  }

  /** Clients' requests in flight: operators' requests (admin procedures, the scrape reading this) left out. */
  get activeRequests(): number {
    return this.active - this.activeInternal;
  }

  /** The live figures of the last minute (never reads the ledger). */
  activity(now?: number): ActivitySnapshot {
    return this.window.snapshot(this.activeRequests, this.options.circuits?.() ?? [], now);
  }

  /**
   * A record for a request that just arrived. `internal`: true for an operator's request (admin
   * procedures, scrapes, probes), `'dashboard'` for a call of the web dashboard's own API.
   */
  begin(requestId: string, route: string, operation: string, apiFormat: string, internal: boolean | 'dashboard' = false, traced?: { method: string; traceparent?: string; tracestate?: string }): RequestRecord {
    this.active += 1;
    const record = new RequestRecord(this, requestId, route, operation, apiFormat);
    if (internal === 'dashboard') record.dashboard = true;
    else if (internal) record.internal = true;
    if (internal) this.activeInternal += 1;
    if (this.tracer && traced) {
      record.method = traced.method;
      this.guard('tracing', () => this.tracer!.startRequest(record, traced.traceparent, traced.tracestate));
    }
    return record;
  }

  /** Notes the error a request ended with (status, code, and for the gateway's own 429s the limited resource). */
  fail(record: RequestRecord, error: GatewayError): void {
    record.errorCode = error.code;
    if (error.code === 'rate_limit_exceeded') record.rateLimitScope = limitedResource(error.details);
  }

  /**
   * The response is out (a stream's head): the record is emitted once billing has settled it,
   * which for a stream is after its last byte. Idempotent.
   */
  end(record: RequestRecord, status: number): void {
    if (record.status === 0) record.status = status;
    const settling = record.settling;
    if (settling) void settling.then(() => this.emit(record));
    else this.emit(record);
  }

  private emit(record: RequestRecord): void {
    if (record.ended) return;
    record.ended = true;
    this.active -= 1;
    if (record.internal || record.dashboard) this.activeInternal -= 1;
    record.durationMs = performance.now() - record.startedAt;
    record.closeAttempts();
    if (this.metrics) this.metrics.recordRequest(record);
    if (this.tracer && record.trace !== undefined) {
      this.guard('tracing', () => this.tracer!.endRequest(record));
      record.trace = undefined; // the live window keeps records: not their spans
    }
    for (const consumer of this.consumers) {
      try {
        consumer.consume(record);
      } catch (error) {
        this.options.onError?.('request record consumer failed', error);
      }
    }
  }

  countAttempt(provider: string, model: string, outcome: AttemptOutcome): void {
    this.metrics?.countAttempt(provider, model, outcome);
  }

  traceAttemptStarted(record: RequestRecord, provider: string, model: string, upstreamModel: string): void {
    this.guard('tracing', () => this.tracer?.attemptStarted(record, provider, model, upstreamModel));
  }

  traceAttemptDispatched(record: RequestRecord): void {
    this.guard('tracing', () => this.tracer?.attemptDispatched(record));
  }

  traceAttemptEnded(record: RequestRecord, provider: string, model: string, errorCode: string | undefined): void {
    this.guard('tracing', () => this.tracer?.attemptEnded(record, provider, model, errorCode));
  }

  /** For the batch executor: one batch line done, with its outcome (`ok`, `error`, …). */
  countBatchLine(outcome: string): void {
    this.metrics?.countBatchLine(outcome);
  }

  /** Flushes the request log and exports pending spans. */
  async close(): Promise<void> {
    for (const consumer of this.consumers) await consumer.close?.().catch((error: unknown) => this.options.onError?.('closing a request record consumer failed', error));
    await this.tracer?.close().catch((error: unknown) => this.options.onError?.('closing the tracer failed', error));
  }

  private guard(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.options.onError?.(`${what} failed`, error);
    }
  }
}

/**
 * The resource a gateway 429 limited: the limiter's scope, `api_key` for the per-key
 * concurrency cap; undefined for a provider's 429 (it names the provider).
 */
function limitedResource(details: Record<string, unknown> | undefined): string | undefined {
  if (!details || details.provider !== undefined) return undefined;
  const scope = details.scope;
  if (scope === 'ip' || scope === 'user' || scope === 'api_key') return scope;
  return details.max_concurrency !== undefined ? 'api_key' : undefined;
}
