import type { Pool } from 'undici';
import { abortWatchOf, watchOf, type AbortWatch } from '../util/index.ts';
import { rememberSecretHeader } from '../util/index.ts';
import { UpstreamBody } from './upstream-body.ts';
import { mapTransportError } from './map-transport-error.ts';
import { undici } from './undici.ts';
import { ConnectionGate, DEFAULT_CONNECTION_LIMITS } from './connection-gate.ts';
import type { ConnectionLimits, ConnectionStats, HttpClient, HttpClientFactory, HttpRequest, UpstreamResponse, UpstreamTimeouts } from './types.ts';

/** Default upstream timeouts (ms); a provider's `timeouts` config overrides each. */
export const DEFAULT_TIMEOUTS: UpstreamTimeouts = {
  connect: 10_000,
  firstByte: 120_000,
  idle: 60_000,
  total: 600_000,
};

interface PoolEntry {
  pool: Pool;
  refs: number;
}

/**
 * Keep-alive pools per (origin, timeouts) for one provider. undici's Pool costs about a sixth of
 * the global fetch per proxied request on our machines (stack notes), so every upstream call
 * goes here. The provider's calls in flight are capped by its ConnectionGate, and each pool has
 * as many connections as the gate allows, so undici itself never queues a call.
 */
export class UndiciHttpFactory implements HttpClientFactory {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly gate: ConnectionGate;
  private readonly limits: ConnectionLimits;

  constructor(
    private readonly timeouts: UpstreamTimeouts,
    limits: Partial<ConnectionLimits> = {},
    private readonly provider = 'upstream',
  ) {
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
    this.gate = new ConnectionGate(provider, this.limits);
  }

  /** Calls in flight and waiting now, refusals since start. */
  stats(): ConnectionStats {
    return this.gate.stats();
  }

  client(baseURL: string): HttpClient {
    // A plugin passes ctx.baseURL on: undefined when the config gives none, where undici's own words would be only 'Invalid URL'.
    if (typeof baseURL !== 'string' || !URL.canParse(baseURL)) {
      throw new Error(`http.client() needs an absolute URL, got ${JSON.stringify(baseURL) ?? 'undefined'}: give provider '${this.provider}' a baseURL in the config (providers.${this.provider}.baseURL)`);
    }
    const url = new URL(baseURL);
    const basePath = url.pathname.replace(/\/+$/, '');
    const key = url.origin;
    let entry = this.pools.get(key);
    if (!entry) {
      entry = {
        pool: new (undici().Pool)(url.origin, {
          connections: this.limits.maxConnections,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          connectTimeout: this.timeouts.connect,
          headersTimeout: this.timeouts.firstByte,
          bodyTimeout: this.timeouts.idle,
        }),
        refs: 0,
      };
      this.pools.set(key, entry);
    }
    entry.refs += 1;
    const pool = entry.pool;
    return {
      request: (request) => send(pool, this.gate, basePath, request),
      close: async () => {
        const current = this.pools.get(key);
        if (!current) return;
        current.refs -= 1;
        if (current.refs <= 0) {
          this.pools.delete(key);
          await current.pool.close().catch(() => undefined);
        }
      },
    };
  }

  async closeAll(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.destroy().catch(() => undefined)));
  }
}

/**
 * Header names whose values are credentials: an upstream message quoting one back is redacted.
 * Remembered as transient values: a plugin may sign each call anew (SigV4), and those must not
 * push the configured keys out (the registry remembers those for good).
 */
const CREDENTIAL_HEADER = /auth|key|token|secret|signature|credential|cookie/i;
/** Header objects already looked at (plugins usually build theirs once). */
const seenHeaders = new WeakSet<object>();

function rememberCredentials(headers: Record<string, string>): void {
  if (seenHeaders.has(headers)) return;
  seenHeaders.add(headers);
  for (const name in headers) if (CREDENTIAL_HEADER.test(name)) rememberSecretHeader(headers[name], true);
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function send(pool: Pool, gate: ConnectionGate, basePath: string, request: HttpRequest): Promise<UpstreamResponse> {
  if (request.headers) rememberCredentials(request.headers);
  // A form adds its content type to a copy; undici only reads the headers it is given, so a JSON call sends the plugin's own.
  if (typeof FormData !== 'undefined' && request.body instanceof FormData) return sendForm(pool, gate, basePath, request, request.body, { ...request.headers });
  return dispatch(pool, gate, basePath, request, request.headers ?? NO_HEADERS, request.body as string | Uint8Array | undefined);
}

/** undici's Pool does not encode FormData itself: let a web Response build the multipart body. */
async function sendForm(pool: Pool, gate: ConnectionGate, basePath: string, request: HttpRequest, form: FormData, headers: Record<string, string>): Promise<UpstreamResponse> {
  const encoded = new Response(form);
  headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
  return dispatch(pool, gate, basePath, request, headers, new Uint8Array(await encoded.arrayBuffer()));
}

/**
 * One request, once the gate gives it a connection slot (held until its body ends or fails);
 * transport failures reject already mapped to the spec's codes.
 */
function dispatch(pool: Pool, gate: ConnectionGate, basePath: string, request: HttpRequest, headers: Record<string, string>, body: string | Uint8Array | undefined): Promise<UpstreamResponse> {
  const watch = request.abortOn ? abortWatchOf(request.abortOn) : request.signal ? watchOf(request.signal) : undefined;
  if (watch?.aborted) return Promise.reject(mapTransportError(abortError(watch.reason), watch));
  const go = () =>
    new Promise<UpstreamResponse>((resolve, reject) => {
      const handler = new ResponseHandler(resolve, reject, watch, () => gate.release(), gate.provider);
      const options = { method: (request.method ?? 'POST') as 'POST', path: basePath + request.path, headers, body };
      try {
        pool.dispatch(options, handler as unknown as Parameters<Pool['dispatch']>[1]);
      } catch (error) {
        handler.onError(error);
      }
    });
  const waiting = gate.acquire(watch);
  return waiting ? waiting.then(go) : go();
}

function abortError(reason: unknown): unknown {
  return reason ?? new (undici().errors.RequestAbortedError)();
}

/**
 * An upstream response whose headers are parsed from undici's raw list when first read: a 2xx
 * chat answer never reads them (errors, media and batches do), and parsing them into an
 * object cost every request its strings and object.
 */
class DispatchedResponse implements UpstreamResponse {
  private parsed: Record<string, string | string[] | undefined> | undefined;

  constructor(
    readonly status: number,
    /** Views into the socket's chunks, which undici does not reuse. */
    private rawHeaders: Buffer[] | undefined,
    readonly body: UpstreamBody,
  ) {}

  get headers(): Record<string, string | string[] | undefined> {
    if (this.parsed === undefined) {
      this.parsed = undici().util.parseHeaders(this.rawHeaders!) as Record<string, string | string[] | undefined>;
      this.rawHeaders = undefined;
    }
    return this.parsed;
  }

  abort(): void {
    this.body.destroy();
  }
}

/**
 * undici's dispatch callbacks, straight into an UpstreamBody: what `pool.request` does,
 * without its async resource and Node stream per response (a third of undici's cost per
 * proxied request). The request's abort (its `abortOn` or `signal`) stops the call before and during the body.
 */
class ResponseHandler {
  private abortCall: ((reason?: unknown) => void) | undefined;
  private pendingAbort: { reason: unknown } | undefined;
  private body: UpstreamBody | undefined;
  private readonly stopListening: (() => void) | undefined;
  private release: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly watch: AbortWatch | undefined,
    release: () => void,
    private readonly provider: string,
  ) {
    this.release = release;
    if (!watch) return;
    if (watch.aborted) this.pendingAbort = { reason: watch.reason };
    else this.stopListening = watch.listen(() => this.abort(watch.reason));
  }

  abort(reason: unknown): void {
    if (this.abortCall) this.abortCall(abortError(reason));
    else this.pendingAbort = { reason };
  }

  onConnect(abort: (reason?: unknown) => void): void {
    this.abortCall = abort;
    if (this.pendingAbort) abort(abortError(this.pendingAbort.reason));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const body = new UpstreamBody((reason) => this.abort(reason), resume);
    this.body = body;
    this.resolve(new DispatchedResponse(statusCode, rawHeaders, body));
    return true;
  }

  /** The call's connection slot goes back to the gate once, whichever way the call ended. */
  private freeSlot(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  onData(chunk: Buffer): boolean {
    return this.body!.push(chunk);
  }

  onComplete(): void {
    this.stopListening?.();
    this.freeSlot();
    this.body?.finish();
  }

  onError(error: unknown): void {
    this.stopListening?.();
    this.freeSlot();
    if (this.body) this.body.fail(error);
    else this.reject(mapTransportError(error, this.watch, this.provider));
  }
}
