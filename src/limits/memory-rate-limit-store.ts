import { buildHitResult } from './build-hit-result.ts';
import { SlidingLog } from './sliding-log.ts';
import type { ConcurrencyLease, RateLimitResult, RateLimitStore } from './types.ts';

export interface MemoryRateLimitStoreOptions {
  /** How often idle keys and expired leases are dropped (default 60 s). */
  sweepIntervalMs?: number;
  /** Clock (ms epoch); injectable for tests. */
  clock?: () => number;
}

/**
 * Exact sliding-window limiter and concurrency slots for a single process; answers at once.
 * Memory is bounded by the keys active within their window: an unref'd timer drops the rest.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly logs = new Map<string, SlidingLog>();
  private readonly leases = new Map<string, Map<number, number>>();
  private readonly clock: () => number;
  private readonly timer: NodeJS.Timeout;
  private leaseSeq = 0;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.timer.unref();
  }

  /** Number of keys holding state (for tests and metrics). */
  get keyCount(): number {
    return this.logs.size + this.leases.size;
  }

  hit(key: string, limit: number, windowMs: number, now = this.clock()): RateLimitResult {
    let log = this.logs.get(key);
    if (!log) {
      // Start tiny and double on demand: a flood of one-hit keys (IP spray) costs ~100 bytes each.
      log = new SlidingLog(Math.min(Math.max(limit, 1), 4));
      this.logs.set(key, log);
    }
    log.windowMs = windowMs;
    log.prune(now - windowMs);
    const allowed = log.size < limit;
    if (allowed) log.push(now);
    const used = log.size;
    const anchorIndex = allowed ? 0 : used - Math.max(limit, 1);
    const anchor = used > 0 ? log.at(Math.max(0, anchorIndex)) : undefined;
    if (used === 0) this.logs.delete(key);
    return buildHitResult({ allowed, used, anchor, now }, limit, windowMs);
  }

  acquire(key: string, max: number, ttlMs: number): ConcurrencyLease | null {
    const now = this.clock();
    let held = this.leases.get(key);
    // Expired slots matter only to a key that looks full (the sweep drops the rest): no walk over
    // every slot in flight on each request.
    if (held && held.size >= max) dropExpired(held, now);
    if ((held?.size ?? 0) >= max) return null;
    if (!held) {
      held = new Map();
      this.leases.set(key, held);
    }
    const seq = ++this.leaseSeq;
    held.set(seq, now + ttlMs);
    return new MemoryLease(this.leases, key, held, seq, max - held.size);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.logs.clear();
    this.leases.clear();
  }

  /** Drops logs whose newest hit left its window and leases past their expiry. */
  sweep(now = this.clock()): void {
    for (const [key, log] of this.logs) {
      const newest = log.newest();
      if (newest === undefined || newest <= now - log.windowMs) this.logs.delete(key);
    }
    for (const [key, held] of this.leases) {
      dropExpired(held, now);
      if (held.size === 0) this.leases.delete(key);
    }
  }
}

function dropExpired(held: Map<number, number>, now: number): void {
  for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
}

/** A slot of the memory store; releasing it twice is harmless. */
class MemoryLease implements ConcurrencyLease {
  constructor(
    private readonly leases: Map<string, Map<number, number>>,
    private readonly key: string,
    private readonly slots: Map<number, number>,
    private readonly seq: number,
    readonly remaining: number,
  ) {}

  get id(): string {
    return `m${this.seq}`;
  }

  release(): void {
    const slots = this.slots;
    slots.delete(this.seq);
    if (slots.size === 0 && this.leases.get(this.key) === slots) this.leases.delete(this.key);
  }
}
