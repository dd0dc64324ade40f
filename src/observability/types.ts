/** What happened to one upstream attempt, seen from the router: served, tried again, left for another candidate, or the end. */
export type AttemptOutcome = 'ok' | 'retry' | 'fallback' | 'error';

/**
 * What the pipeline reports about the upstream attempts of one request (the observability
 * port; one per request, so no request argument). Every method is cheap and never throws.
 */
export interface AttemptObserver {
  /** A call to `model` (`provider/model`) of `provider` starts; the plugin's HTTP request follows synchronously. */
  attemptStarted(provider: string, model: string, upstreamModel: string): void;
  /** The plugin's call has been made: the window in which its HTTP request may carry the trace context closes. */
  attemptDispatched(): void;
  /** The attempt answered and its answer passed the first checks (a stream's first record included). */
  attemptSucceeded(provider: string, model: string): void;
  /** The attempt failed with this error code; the router decides next whether that was a retry, a fallback or the end. */
  attemptFailed(provider: string, model: string, errorCode: string): void;
}

/** What billing charged for a request, once settled (credits). */
export interface SettledCharge {
  /** The price of the usage, after discounts and multipliers. */
  cost: number;
  /** What was debited (less than `cost` when the balance ran out and billing does not enforce). */
  charged: number;
  /** What the admission held for the request (the hold rule's worst case), when it held credits. */
  held?: number;
}

/** What the exchange metered once it ended (a subset of the pipeline's Settlement). */
export interface SettledUsage {
  usage: { inputTokens: number; outputTokens: number; webSearchRequests?: number };
  /** The error code of a stream that failed after its first byte. */
  error?: string;
  /** The upstream's finish reason, when it said one. */
  finishReason?: string;
  /** The model id the upstream said it used. */
  responseModel?: string;
}

/** A provider/model circuit as the router holds it. */
export interface CircuitView {
  provider: string;
  /** The full model id (`provider/model`), as every other model of the activity snapshot and /health name it. */
  model: string;
  /** Epoch ms when the circuit opened. */
  openedAt: number;
}

/** One provider's upstream connections as its HTTP client holds them. */
export interface UpstreamConnectionView {
  provider: string;
  inUse: number;
  queued: number;
  /** Calls refused since start because the queue was full. */
  refusedFull: number;
  /** Calls refused since start after waiting the queue timeout. */
  refusedTimeout: number;
}
