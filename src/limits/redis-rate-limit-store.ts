import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { GatewayError } from '../errors/index.ts';
import { buildDegradedResult, buildHitResult } from './build-hit-result.ts';
import { ACQUIRE_SCRIPT, HIT_SCRIPT } from './redis-scripts.ts';
import type { ConcurrencyLease, RateLimitResult, RateLimitStore, StoreErrorPolicy } from './types.ts';

export interface RedisRateLimitStoreOptions {
  /** Redis address (default redis://127.0.0.1:6379); ignored when `client` is given. */
  url?: string;
  /** A client to use instead of connecting; the caller owns it (each command is still bounded by `commandTimeoutMs`). */
  client?: Redis;
  /** Prefix of every key (default `gw:rl:`). */
  prefix?: string;
  /** 'open' admits requests when Redis fails (flagged degraded); 'closed' throws service_unavailable. */
  onError?: StoreErrorPolicy;
  /** Longest wait for one Redis reply before the failure policy applies (default 300 ms). */
  commandTimeoutMs?: number;
  /** Where outage notices go (default console.warn); never receives addresses or credentials. */
  log?: (message: string) => void;
}

type ScriptReply = [number, number, number, number];

interface LimitCommands {
  gwRateLimitHit(key: string, limit: number, windowMs: number, now: string, member: string): Promise<ScriptReply>;
  gwRateLimitAcquire(key: string, max: number, ttlMs: number, leaseId: string): Promise<[number, number]>;
}

/**
 * Exact sliding window and concurrency slots shared by every gateway process on one Redis.
 * Never queues commands while Redis is away: each call answers within `commandTimeoutMs`.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly prefix: string;
  readonly onError: StoreErrorPolicy;
  private readonly client: Redis & LimitCommands;
  private readonly ownsClient: boolean;
  private readonly log: (message: string) => void;
  private readonly timeoutMs: number;
  private readonly instanceId = randomBytes(6).toString('hex');
  private seq = 0;
  private failing = false;

  constructor(options: RedisRateLimitStoreOptions = {}) {
    this.prefix = options.prefix ?? 'gw:rl:';
    this.onError = options.onError ?? 'open';
    this.log = options.log ?? ((message) => console.warn(message));
    this.ownsClient = options.client === undefined;
    this.timeoutMs = options.commandTimeoutMs ?? 300;
    const client = options.client ?? createClient(options.url ?? 'redis://127.0.0.1:6379', this.timeoutMs);
    client.defineCommand('gwRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    client.defineCommand('gwRateLimitAcquire', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    // Without an error listener ioredis reports every failed reconnect as an unhandled error.
    client.on('error', (error: Error) => this.noteFailure(error));
    client.on('ready', () => this.noteRecovery());
    this.client = client as Redis & LimitCommands;
  }

  /** Resolves true once Redis answers, false if it does not within `timeoutMs`; never rejects. */
  async ready(timeoutMs = 2_000): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(value);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.on('ready', onReady);
    });
  }

  reachable(): boolean {
    return !this.failing && this.client.status === 'ready';
  }

  async hit(key: string, limit: number, windowMs: number, now?: number): Promise<RateLimitResult> {
    try {
      const [allowed, used, serverNow, anchor] = await answerWithin(this.timeoutMs, this.client.gwRateLimitHit(
        `${this.prefix}hit:${key}`, limit, windowMs, now === undefined ? '' : String(Math.floor(now)), this.nextId(),
      ));
      if (this.failing) this.noteRecovery();
      return buildHitResult({ allowed: allowed === 1, used, now: serverNow, anchor: anchor < 0 ? undefined : anchor }, limit, windowMs);
    } catch (error) {
      this.onCommandError(error);
      return buildDegradedResult(limit, windowMs, now ?? Date.now());
    }
  }

  async acquire(key: string, max: number, ttlMs: number): Promise<ConcurrencyLease | null> {
    const id = this.nextId();
    const redisKey = `${this.prefix}cc:${key}`;
    let acquired: number;
    let remaining: number;
    try {
      [acquired, remaining] = await answerWithin(this.timeoutMs, this.client.gwRateLimitAcquire(redisKey, max, ttlMs, id));
    } catch (error) {
      // A reply that is late, not lost (a slow link, a busy process): the script may still take the
      // slot, and nothing would give it back before its TTL (10 minutes by default) while the
      // caller went on without it. Removed after it, in order on the same connection.
      this.client.zrem(redisKey, id).catch(() => undefined);
      this.onCommandError(error);
      return { id, remaining: Math.max(0, max - 1), degraded: true, release: async () => {} };
    }
    if (this.failing) this.noteRecovery();
    if (acquired !== 1) return null;
    let released = false;
    return {
      id,
      remaining,
      release: async () => {
        if (released) return;
        released = true;
        // A lost release only holds the slot until its expiry, so it never fails the request.
        await answerWithin(this.timeoutMs, this.client.zrem(redisKey, id)).catch((error: unknown) => this.noteFailure(error));
      },
    };
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    await answerWithin(this.timeoutMs, this.client.quit()).catch(() => this.client.disconnect());
  }

  private nextId(): string {
    return `${this.instanceId}:${(++this.seq).toString(36)}`;
  }

  private onCommandError(error: unknown): void {
    this.noteFailure(error);
    if (this.onError === 'closed') {
      throw new GatewayError('service_unavailable', 'Rate limiting is temporarily unavailable; retry shortly.', {
        cause: error,
        retryAfter: 1,
      });
    }
  }

  /** Logs the first failure of an outage only, by error code, so a dead Redis does not flood logs. */
  private noteFailure(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.log(`rate-limit store: Redis unavailable (${describeError(error)}); applying fail-${this.onError} policy`);
  }

  private noteRecovery(): void {
    if (!this.failing) return;
    this.failing = false;
    this.log('rate-limit store: Redis available again');
  }
}

/**
 * ioredis, loaded when a Redis store is made: a gateway on the memory store never loads it
 * (about 9 MB of resident memory).
 */
function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis }).Redis;
}

/**
 * `reply`, or a rejection when Redis has not answered within `ms`. ioredis's own
 * `commandTimeout` is not used: its timer fires in the event loop's timer phase, before the
 * loop reads the sockets, so when this process was busy past `ms` (a burst of requests being
 * parsed and admitted) a reply that arrived in time, waiting unread in the socket, was taken for
 * a Redis outage (three quarters of a 300-request burst refused 503 with fail-closed). Here the
 * verdict waits one more turn (`setImmediate` runs after the loop's I/O poll), so a reply that is
 * there is read first.
 */
function answerWithin<T>(ms: number, reply: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => setImmediate(() => {
      if (settled) return;
      settled = true;
      reject(new Error('Command timed out'));
    }), ms);
    reply.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function createClient(url: string, commandTimeoutMs: number): Redis {
  const Client = loadRedis();
  return new Client(url, {
    connectTimeout: Math.max(1_000, commandTimeoutMs * 4),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // Keep reconnecting in the background, at most every 2 s, while requests fail fast.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ?? error.message.slice(0, 120);
  }
  return 'unknown error';
}
