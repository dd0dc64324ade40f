import { GatewayError } from '../errors/index.ts';

/**
 * The bytes of large JSON bodies being read and parsed at once, across all requests of this
 * process (`server.bodyLimits.inFlight`, docs/limits.md): a parse holds its body's bytes and
 * what it builds from them, so past this many the next large body is refused with 503 and
 * `Retry-After` instead of growing the heap until V8 gives up.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  /** Takes `bytes` from the budget; throws 503 service_unavailable (nothing taken) when they do not fit. */
  take(bytes: number): void {
    if (this.used + bytes > this.capacity) {
      throw new GatewayError('service_unavailable', `The gateway is parsing as many large request bodies as it can hold at once (server.bodyLimits.inFlight, ${this.capacity} bytes); retry shortly.`, {
        retryAfter: 1,
        details: { limit_in_flight_bytes: this.capacity },
      });
    }
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes held now (tests, metrics). */
  get inUse(): number {
    return this.used;
  }
}
