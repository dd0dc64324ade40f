import { GatewayError, isGatewayError } from '../errors/index.ts';
import type { AbortWatch } from '../util/index.ts';
import type { ConnectionLimits, ConnectionStats } from './types.ts';

/** Defaults of a provider's `maxConnections`, `maxQueued` and `queueTimeoutMs` (docs/limits.md). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1024,
  maxQueued: 1024,
  queueTimeoutMs: 10_000,
};

interface Waiter {
  grant: () => void;
  refuse: (error: GatewayError) => void;
  timer: NodeJS.Timeout;
  stopListening?: () => void;
}

/**
 * The upstream calls of one provider in flight at once (`maxConnections`: with pipelining 1,
 * one connection each) and the calls waiting for one. undici's Pool queues without bound or
 * deadline; here a call beyond the cap waits at most `queueTimeoutMs`, behind at most
 * `maxQueued` others, and is then refused with a 503 that says so.
 */
export class ConnectionGate {
  private inUse = 0;
  private readonly waiting: Waiter[] = [];
  private refusedFull = 0;
  private refusedTimeout = 0;

  constructor(
    /** The provider whose calls it gates: its refusals, and a transport failure's message, name it. */
    readonly provider: string,
    private readonly limits: ConnectionLimits,
  ) {}

  /**
   * Takes a connection slot: undefined when one was free (the call goes at once), else a promise
   * settled when one frees, or rejected when the queue is full, the wait times out or `watch` aborts.
   */
  acquire(watch: AbortWatch | undefined): Promise<void> | undefined {
    if (this.inUse < this.limits.maxConnections) {
      this.inUse += 1;
      return undefined;
    }
    if (this.waiting.length >= this.limits.maxQueued) {
      this.refusedFull += 1;
      return Promise.reject(this.busy(`and ${this.waiting.length} calls are already waiting`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        refuse: reject,
        timer: setTimeout(() => {
          if (!this.remove(waiter)) return;
          this.refusedTimeout += 1;
          reject(this.busy(`for ${this.limits.queueTimeoutMs} ms`));
        }, this.limits.queueTimeoutMs),
      };
      if (watch) {
        waiter.stopListening = watch.listen(() => {
          if (this.remove(waiter)) reject(isGatewayError(watch.reason) ? watch.reason : new GatewayError('provider_timeout', 'The request to the provider was aborted.'));
        });
      }
      this.waiting.push(waiter);
    });
  }

  /** Gives a slot back: to the longest waiting call, else to the pool. */
  release(): void {
    const next = this.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.stopListening?.();
      next.grant(); // the slot passes on: inUse stays
      return;
    }
    this.inUse -= 1;
  }

  stats(): ConnectionStats {
    return { inUse: this.inUse, queued: this.waiting.length, refusedFull: this.refusedFull, refusedTimeout: this.refusedTimeout };
  }

  private remove(waiter: Waiter): boolean {
    const index = this.waiting.indexOf(waiter);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.stopListening?.();
    return true;
  }

  private busy(how: string): GatewayError {
    const { maxConnections } = this.limits;
    return new GatewayError(
      'service_unavailable',
      `All ${maxConnections} upstream connections of provider '${this.provider}' are busy ${how} (providers.${this.provider}.maxConnections); retry shortly.`,
      { retryAfter: 1, details: { provider: this.provider, limit: 'maxConnections' } },
    );
  }
}
