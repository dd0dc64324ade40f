import type { RecordConsumer } from './observer.ts';
import type { RequestRecord } from './request-record.ts';
import type { CircuitView } from './types.ts';

/** Percentiles of a set of durations (ms). */
export interface Percentiles {
  p50: number;
  p95: number;
}

/** One of the latest requests, as the live views list them. */
export interface LatestRequest {
  time: number;
  route: string;
  model: string | null;
  provider: string | null;
  status: number;
  error_code: string | null;
  duration_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
}

/** What is happening now: the live figures `gateway status` prints and the TUI Overview shows. */
export interface ActivitySnapshot {
  /** Epoch ms of the snapshot. */
  now: number;
  uptime_seconds: number;
  /** Seconds the rates and percentiles cover (up to 60; less after start or when traffic outran the window). */
  window_seconds: number;
  active_requests: number;
  /** Requests finished since the server started (operator requests left out). */
  total_requests: number;
  /** Over the last 10 seconds. */
  requests_per_second: number;
  /** Share of the window's requests that ended in an error (status ≥ 400, or a stream that failed). */
  error_rate: number;
  requests: number;
  errors: number;
  latency_ms: Percentiles | null;
  /** Time to the first streamed byte of streamed requests. */
  ttft_ms: Percentiles | null;
  tokens_per_minute: number;
  credits_per_minute: number;
  top_models: Array<{ model: string; requests: number }>;
  top_providers: Array<{ provider: string; requests: number }>;
  open_circuits: CircuitView[];
  /** Newest first. */
  latest: LatestRequest[];
}

const WINDOW_MS = 60_000;
const RATE_MS = 10_000;
const TOP = 5;
const LATEST = 20;

function percentiles(values: number[]): Percentiles | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))];
  return { p50: round(at(0.5)), p95: round(at(0.95)) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function top<K extends string>(counts: Map<string, number>, key: K): Array<Record<K, string> & { requests: number }> {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP)
    .map(([name, requests]) => ({ [key]: name, requests }) as Record<K, string> & { requests: number });
}

const isError = (r: RequestRecord) => r.status >= 400 || r.errorCode !== undefined;

/**
 * The last requests in memory (a ring of `capacity` records): enough for the live figures of
 * the last minute without reading the ledger. One slot write per request; the figures are
 * computed when asked (once a second per viewer).
 */
export class ActivityWindow implements RecordConsumer {
  private readonly ring: Array<RequestRecord | undefined>;
  private next = 0;
  private total = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly capacity = 4096) {
    this.ring = new Array<RequestRecord | undefined>(capacity);
  }

  consume(record: RequestRecord): void {
    if (record.internal) return;
    this.ring[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
    this.total += 1;
  }

  /** The live figures at `now` (epoch ms). */
  snapshot(active: number, circuits: CircuitView[], now = Date.now()): ActivitySnapshot {
    const inWindow: RequestRecord[] = [];
    for (let i = 1; i <= this.capacity; i += 1) {
      const record = this.ring[(this.next - i + this.capacity) % this.capacity];
      if (!record || now - endOf(record) > WINDOW_MS) break;
      inWindow.push(record);
    }
    const full = inWindow.length === this.capacity;
    const spanMs = Math.max(1, Math.min(WINDOW_MS, now - this.startedAt, full ? now - endOf(inWindow[inWindow.length - 1]) : WINDOW_MS));
    const recent = inWindow.filter((r) => now - endOf(r) <= RATE_MS).length;
    const rateSpanMs = Math.max(1, Math.min(RATE_MS, spanMs));
    let errors = 0;
    let tokens = 0;
    let credits = 0;
    const latency: number[] = [];
    const ttft: number[] = [];
    const models = new Map<string, number>();
    const providers = new Map<string, number>();
    for (const r of inWindow) {
      if (isError(r)) errors += 1;
      tokens += (r.inputTokens ?? 0) + (r.outputTokens ?? 0);
      credits += r.chargedCredits ?? 0;
      latency.push(r.durationMs);
      if (r.stream && r.ttfbMs !== undefined) ttft.push(r.ttfbMs);
      if (r.model) models.set(r.model, (models.get(r.model) ?? 0) + 1);
      if (r.provider) providers.set(r.provider, (providers.get(r.provider) ?? 0) + 1);
    }
    const perMinute = 60_000 / spanMs;
    return {
      now,
      uptime_seconds: Math.floor((now - this.startedAt) / 1000),
      window_seconds: round(spanMs / 1000),
      active_requests: active,
      total_requests: this.total,
      requests_per_second: round((recent * 1000) / rateSpanMs),
      error_rate: inWindow.length === 0 ? 0 : round(errors / inWindow.length),
      requests: inWindow.length,
      errors,
      latency_ms: percentiles(latency),
      ttft_ms: percentiles(ttft),
      tokens_per_minute: Math.round(tokens * perMinute),
      credits_per_minute: Math.round(credits * perMinute * 1e6) / 1e6,
      top_models: top(models, 'model'),
      top_providers: top(providers, 'provider'),
      open_circuits: circuits,
      latest: inWindow.slice(0, LATEST).map((r) => ({
        time: r.time,
        route: r.route,
        model: r.model ?? r.requestedModel ?? null,
        provider: r.provider ?? null,
        status: r.status,
        error_code: r.errorCode ?? null,
        duration_ms: round(r.durationMs),
        input_tokens: r.inputTokens ?? null,
        output_tokens: r.outputTokens ?? null,
      })),
    };
  }
}

/** Epoch ms when a record ended. */
function endOf(record: RequestRecord): number {
  return record.time + record.durationMs;
}
