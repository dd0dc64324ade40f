import { reportedCount } from '../util/index.ts';
import type { AttemptObserver, AttemptOutcome, SettledCharge, SettledUsage } from './types.ts';

/** Where a record reports its attempts (the observer). */
export interface AttemptSink {
  countAttempt(provider: string, model: string, outcome: AttemptOutcome): void;
  traceAttemptStarted(record: RequestRecord, provider: string, model: string, upstreamModel: string): void;
  traceAttemptDispatched(record: RequestRecord): void;
  traceAttemptEnded(record: RequestRecord, provider: string, model: string, errorCode: string | undefined): void;
}

/** A fallback as the record keeps it: the `provider/model` left, why, and who served. */
export interface RecordedFallback {
  from: string;
  reason: string;
}

/**
 * One request as observability sees it: filled in by the HTTP layer and the pipeline along
 * the way, emitted once at the end (metrics, request log, live window, trace). Every field
 * exists from the start so the object keeps one shape. No prompt or completion text, ever.
 */
export class RequestRecord implements AttemptObserver {
  /** `performance.now()` at arrival. */
  readonly startedAt: number;
  /** Epoch ms at arrival. */
  readonly time: number;
  /** The wire format or media kind of the route (`chat`, `messages`, `responses`, `images`, `audio`), '' for others. */
  apiFormat: string;
  accountId: string | undefined = undefined;
  keyId: string | undefined = undefined;
  /** The model id the client asked for. */
  requestedModel: string | undefined = undefined;
  /** The `provider/model` that served (or was tried last). */
  model: string | undefined = undefined;
  provider: string | undefined = undefined;
  stream = false;
  /** The HTTP status sent. */
  status = 0;
  /** The error code of a failed request, or of a stream that failed after its first byte. */
  errorCode: string | undefined = undefined;
  /** The limiter scope (`ip`, `user`, `api_key`) of a 429 from the gateway's own rate limits. */
  rateLimitScope: string | undefined = undefined;
  inputTokens: number | undefined = undefined;
  outputTokens: number | undefined = undefined;
  /** Hosted web searches the upstream ran (billed per search). */
  webSearchRequests: number | undefined = undefined;
  costCredits: number | undefined = undefined;
  chargedCredits: number | undefined = undefined;
  /** Credits the admission held for it (the worst case it could cost). */
  heldCredits: number | undefined = undefined;
  finishReason: string | undefined = undefined;
  responseModel: string | undefined = undefined;
  /** Ms from arrival to the first byte of a streamed response (set when the stream starts). */
  ttfbMs: number | undefined = undefined;
  durationMs = 0;
  fallback: RecordedFallback | undefined = undefined;
  /** What the gateway changed to fit the serving model (`X-Gateway-Adapted`). */
  adapted: string[] | undefined = undefined;
  /** Hosted tools left out because the serving upstream cannot run them (`X-Gateway-Dropped-Tools`). */
  droppedTools: string[] | undefined = undefined;
  /** Upstream calls made. */
  attempts = 0;
  /** Resolves once billing has settled the request; the record is emitted after it. */
  settling: Promise<unknown> | undefined = undefined;
  /** The HTTP method (set for traces only). */
  method = '';
  /** An operator's request (admin procedures, metrics scrapes): counted in metrics, left out of the request log and the live window. */
  internal = false;
  /** A call of the web dashboard's own API (`/api/**`): in metrics and the request log, counted apart from client traffic in the live window. */
  dashboard = false;
  /** The tracing's state for this request (spans), when tracing is on. */
  trace: unknown = undefined;
  ended = false;
  private served = false;
  private failedProvider: string | undefined = undefined;
  private failedModel: string | undefined = undefined;
  /** The first attempt that failed: a later success elsewhere is a fallback from it. */
  private firstFailure: RecordedFallback | undefined = undefined;

  constructor(
    private readonly sink: AttemptSink,
    readonly requestId: string,
    /** The route pattern, e.g. `/v1/chat/completions` (bounded: never the raw path). */
    readonly route: string,
    /** `chat`, `images`, `audio`, `batch`… for GenAI routes, '' for the others. */
    readonly operation: string,
    apiFormat: string,
  ) {
    this.startedAt = performance.now();
    this.time = Date.now();
    this.apiFormat = apiFormat;
  }

  attemptStarted(provider: string, model: string, upstreamModel: string): void {
    this.attempts += 1;
    this.model = model;
    this.provider = provider;
    if (this.failedModel !== undefined) this.settleFailure(this.failedModel === model ? 'retry' : 'fallback');
    if (this.trace !== undefined) this.sink.traceAttemptStarted(this, provider, model, upstreamModel);
  }

  attemptDispatched(): void {
    if (this.trace !== undefined) this.sink.traceAttemptDispatched(this);
  }

  attemptSucceeded(provider: string, model: string): void {
    this.served = true;
    if (this.firstFailure !== undefined && this.firstFailure.from !== model) this.fallback ??= this.firstFailure;
    this.model = model;
    this.provider = provider;
    this.sink.countAttempt(provider, model, 'ok');
    if (this.trace !== undefined) this.sink.traceAttemptEnded(this, provider, model, undefined);
  }

  attemptFailed(provider: string, model: string, errorCode: string): void {
    if (this.trace !== undefined) this.sink.traceAttemptEnded(this, provider, model, errorCode);
    // A hedge race's loser, cancelled after the winner served: not a failure of the request.
    if (this.served) return;
    if (this.failedModel !== undefined) this.settleFailure(this.failedModel === model ? 'retry' : 'fallback');
    this.failedProvider = provider;
    this.failedModel = model;
    this.firstFailure ??= { from: model, reason: errorCode };
  }

  /** Counts a failed attempt still waiting for its outcome as the end of the line (request over). */
  closeAttempts(): void {
    if (this.failedModel !== undefined) this.settleFailure('error');
  }

  private settleFailure(outcome: AttemptOutcome): void {
    this.sink.countAttempt(this.failedProvider!, this.failedModel!, outcome);
    this.failedProvider = this.failedModel = undefined;
  }

  /** The served model and, when another candidate failed first, the fallback. */
  servedBy(provider: string, model: string, fallback?: { from: string; reason: string }): void {
    this.provider = provider;
    this.model = model;
    this.fallback = fallback ? { from: fallback.from, reason: fallback.reason } : undefined;
  }

  /** What billing and the exchange reported at the end. */
  applySettlement(settled: SettledUsage | null, charge: SettledCharge | undefined | void): void {
    if (settled) {
      this.inputTokens = settled.usage.inputTokens;
      this.outputTokens = settled.usage.outputTokens;
      // As the charge reads it (the log never shows a count nobody paid for).
      this.webSearchRequests = reportedCount(settled.usage.webSearchRequests);
      if (settled.error !== undefined) this.errorCode ??= settled.error;
      if (settled.finishReason !== undefined) this.finishReason = settled.finishReason;
      if (settled.responseModel !== undefined) this.responseModel = settled.responseModel;
    }
    if (charge) {
      this.costCredits = charge.cost;
      this.chargedCredits = charge.charged;
      this.heldCredits = charge.held;
    }
  }

  /** Marks the first byte of a streamed response as sent now. */
  firstByte(): void {
    this.ttfbMs ??= performance.now() - this.startedAt;
  }
}

/** `provider/model` → the model part (provider ids never hold a `/`). */
export function modelPart(id: string): string {
  const slash = id.indexOf('/');
  return slash === -1 ? id : id.slice(slash + 1);
}

/** `provider/model` → the provider part. */
export function providerPart(id: string): string {
  const slash = id.indexOf('/');
  return slash === -1 ? '' : id.slice(0, slash);
}

/** Where finished records go besides metrics (request log, live window). */
export interface RecordConsumer {
  consume(record: RequestRecord): void;
  close?(): Promise<void>;
}
