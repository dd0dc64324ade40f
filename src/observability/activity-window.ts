import type { RecordConsumer, RequestRecord } from './request-record.ts';
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
  /** The `provider/model` that failed first when another one served (a fallback), else null. */
  fallback_from: string | null;
}

/** Requests one model fell back to another for, over the window. */
export interface FallbackCount {
  /** The `provider/model` that failed first. */
  from: string;
  /** The `provider/model` that served. */
  to: string;
  requests: number;
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
  /** Requests of the window served by a fallback (another model than the first one tried: the config's chain or the request's own `models`). */
  fallbacks: number;
  /** Requests served by a fallback since the server started. */
  total_fallbacks: number;
  /** The window's fallbacks by the model that failed first and the one that served, most first (up to five). */
  top_fallbacks: FallbackCount[];
  /**
   * The web dashboard's own calls in the window (`/api/**`: sign-in and the account views it
   * polls): not client traffic, so left out of every figure above and counted here apart.
   */
  dashboard_requests: number;
  open_circuits: CircuitView[];
  /** Newest first. */
  latest: LatestRequest[];
}

const WINDOW_MS = 60_000;
const RATE_MS = 10_000;
const TOP = 5;
const LATEST = 20;
/** Dashboard calls the window remembers (their end times only). */
const DASHBOARD_SLOTS = 1024;

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

/**
 * The last requests in memory (a ring of `capacity` slots): enough for the live figures of
 * the last minute without reading the ledger. The ring keeps the few fields the figures read,
 * column by column (typed arrays, and references to strings the gateway holds anyway), not the
 * records: a record kept for 4,096 requests was promoted to the old generation on every request.
 * The figures are computed when asked (once a second per viewer).
 */
export class ActivityWindow implements RecordConsumer {
  private next = 0;
  private total = 0;
  private readonly startedAt = Date.now();
  /** Epoch ms when each request ended (0: an empty slot). */
  private readonly endedAt: Float64Array;
  private readonly time: Float64Array;
  private readonly duration: Float64Array;
  /** NaN where the record had none. */
  private readonly ttfb: Float64Array;
  private readonly inputTokens: Float64Array;
  private readonly outputTokens: Float64Array;
  private readonly credits: Float64Array;
  private readonly status: Uint16Array;
  /** 1: streamed; 2: an error (status ≥ 400, or a stream that failed). */
  private readonly flags: Uint8Array;
  private readonly route: Array<string | undefined>;
  /** The model that served. */
  private readonly model: Array<string | undefined>;
  /** The model the latest list names: the one that served, else the one asked for. */
  private readonly shownModel: Array<string | undefined>;
  private readonly provider: Array<string | undefined>;
  private readonly errorCode: Array<string | undefined>;
  /** The `provider/model` that failed first where another served (a fallback). */
  private readonly fallbackFrom: Array<string | undefined>;
  private fallbacksTotal = 0;
  /** Epoch ms when each of the latest dashboard calls ended (a ring, 0: empty). */
  private readonly dashboardEndedAt = new Float64Array(DASHBOARD_SLOTS);
  private dashboardNext = 0;

  constructor(private readonly capacity = 4096) {
    this.endedAt = new Float64Array(capacity);
    this.time = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.ttfb = new Float64Array(capacity);
    this.inputTokens = new Float64Array(capacity);
    this.outputTokens = new Float64Array(capacity);
    this.credits = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.route = new Array<string | undefined>(capacity).fill(undefined);
    this.model = new Array<string | undefined>(capacity).fill(undefined);
    this.shownModel = new Array<string | undefined>(capacity).fill(undefined);
    this.provider = new Array<string | undefined>(capacity).fill(undefined);
    this.errorCode = new Array<string | undefined>(capacity).fill(undefined);
    this.fallbackFrom = new Array<string | undefined>(capacity).fill(undefined);
  }

  consume(record: RequestRecord): void {
    if (record.internal) return;
    if (record.dashboard) {
      this.dashboardEndedAt[this.dashboardNext] = record.time + record.durationMs;
      this.dashboardNext = (this.dashboardNext + 1) % DASHBOARD_SLOTS;
      return;
    }
    const i = this.next;
    this.time[i] = record.time;
    this.duration[i] = record.durationMs;
    this.endedAt[i] = record.time + record.durationMs;
    this.ttfb[i] = record.ttfbMs ?? NaN;
    this.inputTokens[i] = record.inputTokens ?? NaN;
    this.outputTokens[i] = record.outputTokens ?? NaN;
    this.credits[i] = record.chargedCredits ?? NaN;
    this.status[i] = record.status;
    this.flags[i] = (record.stream ? 1 : 0) | (record.status >= 400 || record.errorCode !== undefined ? 2 : 0);
    this.route[i] = record.route;
    this.model[i] = record.model;
    this.shownModel[i] = record.model ?? record.requestedModel;
    this.provider[i] = record.provider;
    this.errorCode[i] = record.errorCode;
    this.fallbackFrom[i] = record.fallback?.from;
    if (record.fallback) this.fallbacksTotal += 1;
    this.next = (i + 1) % this.capacity;
    this.total += 1;
  }

  /** The live figures at `now` (epoch ms). */
  snapshot(active: number, circuits: CircuitView[], now = Date.now()): ActivitySnapshot {
    // Slots in the window, newest first.
    const inWindow: number[] = [];
    for (let i = 1; i <= this.capacity; i += 1) {
      const slot = (this.next - i + this.capacity) % this.capacity;
      if (this.route[slot] === undefined || now - this.endedAt[slot] > WINDOW_MS) break;
      inWindow.push(slot);
    }
    const full = inWindow.length === this.capacity;
    const spanMs = Math.max(1, Math.min(WINDOW_MS, now - this.startedAt, full ? now - this.endedAt[inWindow[inWindow.length - 1]] : WINDOW_MS));
    const recent = inWindow.filter((slot) => now - this.endedAt[slot] <= RATE_MS).length;
    const rateSpanMs = Math.max(1, Math.min(RATE_MS, spanMs));
    let errors = 0;
    let tokens = 0;
    let credits = 0;
    const latency: number[] = [];
    const ttft: number[] = [];
    const models = new Map<string, number>();
    const providers = new Map<string, number>();
    const fallbacks = new Map<string, FallbackCount>();
    let fallbackCount = 0;
    for (const slot of inWindow) {
      if (this.flags[slot] & 2) errors += 1;
      tokens += orZero(this.inputTokens[slot]) + orZero(this.outputTokens[slot]);
      credits += orZero(this.credits[slot]);
      latency.push(this.duration[slot]);
      if (this.flags[slot] & 1 && !Number.isNaN(this.ttfb[slot])) ttft.push(this.ttfb[slot]);
      const model = this.model[slot];
      if (model) models.set(model, (models.get(model) ?? 0) + 1);
      const provider = this.provider[slot];
      if (provider) providers.set(provider, (providers.get(provider) ?? 0) + 1);
      const from = this.fallbackFrom[slot];
      if (from !== undefined) {
        fallbackCount += 1;
        const to = model ?? '';
        const key = `${from}\n${to}`;
        const counted = fallbacks.get(key);
        if (counted) counted.requests += 1;
        else fallbacks.set(key, { from, to, requests: 1 });
      }
    }
    let dashboard = 0;
    for (const ended of this.dashboardEndedAt) if (ended > 0 && now - ended <= WINDOW_MS) dashboard += 1;
    const perMinute = 60_000 / spanMs;
    return {
      now,
      uptime_seconds: Math.floor((now - this.startedAt) / 1000),
      window_seconds: round(spanMs / 1000),
      active_requests: active,
      total_requests: this.total,
      requests_per_second: round((recent * 1000) / rateSpanMs),
      // Four places: the views print it as a percentage with one decimal (1 of 6 is 16.7 %, not 17.0 %).
      error_rate: inWindow.length === 0 ? 0 : Math.round((errors / inWindow.length) * 10_000) / 10_000,
      requests: inWindow.length,
      errors,
      latency_ms: percentiles(latency),
      ttft_ms: percentiles(ttft),
      tokens_per_minute: Math.round(tokens * perMinute),
      credits_per_minute: Math.round(credits * perMinute * 1e6) / 1e6,
      top_models: top(models, 'model'),
      top_providers: top(providers, 'provider'),
      fallbacks: fallbackCount,
      total_fallbacks: this.fallbacksTotal,
      top_fallbacks: [...fallbacks.values()].sort((a, b) => b.requests - a.requests || a.from.localeCompare(b.from) || a.to.localeCompare(b.to)).slice(0, TOP),
      dashboard_requests: dashboard,
      open_circuits: circuits,
      latest: inWindow.slice(0, LATEST).map((slot) => ({
        time: this.time[slot],
        route: this.route[slot]!,
        model: this.shownModel[slot] ?? null,
        provider: this.provider[slot] ?? null,
        status: this.status[slot],
        error_code: this.errorCode[slot] ?? null,
        duration_ms: round(this.duration[slot]),
        input_tokens: nullIfNaN(this.inputTokens[slot]),
        output_tokens: nullIfNaN(this.outputTokens[slot]),
        fallback_from: this.fallbackFrom[slot] ?? null,
      })),
    };
  }
}

function orZero(value: number): number {
  return Number.isNaN(value) ? 0 : value;
}

function nullIfNaN(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}
