import type { AbortSource } from '../util/index.ts';

/** The transport to upstreams: requests, responses, pooled clients. Types only. */

/** Per-provider upstream timeouts in milliseconds. */
export interface UpstreamTimeouts {
  connect: number;
  firstByte: number;
  idle: number;
  total: number;
}

/** A provider's bound on upstream calls in flight and on calls waiting for a connection. */
export interface ConnectionLimits {
  /** Calls in flight at once (HTTP/1.1 without pipelining: one connection each). */
  maxConnections: number;
  /** Calls waiting for a free connection; beyond it a call is refused at once. */
  maxQueued: number;
  /** How long a call waits for a connection before it is refused. */
  queueTimeoutMs: number;
}

/** A provider's connection use now, and its refusals since start. */
export interface ConnectionStats {
  inUse: number;
  queued: number;
  /** Calls refused because `maxQueued` calls were already waiting. */
  refusedFull: number;
  /** Calls refused after waiting `queueTimeoutMs`. */
  refusedTimeout: number;
}

/**
 * A raw upstream HTTP response as plugins return it; the gateway reads and maps it. The HTTP
 * client's responses parse `headers` on first read (a getter on the response's class): a
 * plugin that wraps one in a new object copies them by name (`{ ...res, headers: res.headers }`).
 */
export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array>;
  /** Closes the body early (client gone, error): frees the socket. */
  abort?: () => void;
}

/** One request through a pooled client. */
export interface HttpRequest {
  method?: string;
  /** Path (and query) relative to the client's base URL, e.g. `/chat/completions`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | FormData;
  signal?: AbortSignal;
  /**
   * Aborts this request together with the call it serves: `abortOn: call` does what
   * `signal: call.signal` does, but the call's AbortSignal (a few µs) is never made unless
   * something else asks for it.
   */
  abortOn?: AbortSource;
}

/** A pooled keep-alive HTTP client bound to one base URL. */
export interface HttpClient {
  request(request: HttpRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export interface HttpClientFactory {
  /** A pooled client for a base URL (shared per origin); timeouts from the provider config. */
  client(baseURL: string): HttpClient;
}


/** Receives an upstream body's chunks, one call each: no promise per chunk. */
export interface ChunkHandler {
  data(chunk: Buffer): void;
  end(): void;
  error(error: unknown): void;
}

/**
 * An upstream body read through callbacks. A stream relay runs once per chunk for every
 * streamed request, and an async iterator costs a promise, a microtask and garbage per
 * chunk and layer.
 */
export interface ChunkSource {
  /** Delivers chunks to `handler` (replacing any earlier one) until paused, ended or failed. */
  resume(handler: ChunkHandler): void;
  /** Stops delivery until the next `resume` (backpressure, or a stream waiting to be relayed). */
  pause(): void;
  /** Stops reading and frees the upstream; no callback follows. */
  destroy(): void;
}
