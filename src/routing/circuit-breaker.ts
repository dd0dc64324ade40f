/** The state of one circuit as the router sees it. */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  now?: () => number;
}

/** What a failed call said about its upstream: the error class (a gateway error code) and the status. */
export interface FailureCause {
  code: string;
  status?: number;
  message?: string;
  cause?: unknown;
}

interface Circuit {
  failures: number;
  openedAt?: number;
  lastFailureAt?: number;
  lastError?: FailureCause;
  /** A half-open probe is in flight: others wait for its verdict. */
  probing: boolean;
}

/** One circuit as /health reports it. */
export interface CircuitSnapshot {
  key: string;
  state: CircuitState;
  failures: number;
  lastFailureAt?: number;
  lastError?: { code: string; status?: number };
}

/** Told of every failure recorded: the key, its cause and the circuit's state after it. */
export type FailureListener = (key: string, cause: FailureCause | undefined, state: CircuitState, failures: number) => void;

/**
 * A circuit breaker per key (provider/model). Closed until `failureThreshold` consecutive
 * failures; then open for `cooldownMs`; then half-open: one probe goes through, and its
 * success closes the circuit while its failure opens it for another cooldown.
 */
export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();
  private readonly now: () => number;
  private readonly listeners = new Set<FailureListener>();

  constructor(private readonly options: BreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  state(key: string): CircuitState {
    const circuit = this.circuits.get(key);
    if (!circuit || circuit.openedAt === undefined) return 'closed';
    return this.now() - circuit.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** True when a call may go to `key` now; a half-open circuit admits one probe at a time. */
  allow(key: string): boolean {
    const state = this.state(key);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    const circuit = this.circuits.get(key)!;
    if (circuit.probing) return false;
    circuit.probing = true;
    return true;
  }

  /** Lets a call through whatever the state (the all-open last resort); counts as the probe. */
  force(key: string): void {
    const circuit = this.circuits.get(key);
    if (circuit) circuit.probing = true;
  }

  recordSuccess(key: string): void {
    this.circuits.delete(key);
  }

  recordFailure(key: string, cause?: FailureCause): void {
    const now = this.now();
    const circuit = this.circuits.get(key) ?? { failures: 0, probing: false };
    const wasProbe = circuit.probing;
    circuit.failures += 1;
    circuit.lastFailureAt = now;
    if (cause) circuit.lastError = cause;
    circuit.probing = false;
    if (wasProbe || circuit.failures >= this.options.failureThreshold) circuit.openedAt = now;
    this.circuits.set(key, circuit);
    if (this.listeners.size > 0) {
      const state = this.state(key);
      for (const listener of this.listeners) listener(key, cause, state, circuit.failures);
    }
  }

  /** Calls `listener` on every recorded failure (e.g. to log it); returns the unsubscribe. */
  onFailure(listener: FailureListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every circuit that has recorded a failure since its last success. */
  snapshot(): CircuitSnapshot[] {
    return [...this.circuits.entries()].map(([key, c]) => {
      const entry: CircuitSnapshot = { key, state: this.state(key), failures: c.failures, lastFailureAt: c.lastFailureAt };
      if (c.lastError) entry.lastError = c.lastError.status === undefined ? { code: c.lastError.code } : { code: c.lastError.code, status: c.lastError.status };
      return entry;
    });
  }

  /** Releases a probe whose outcome says nothing about the upstream (e.g. the client left). */
  release(key: string): void {
    const circuit = this.circuits.get(key);
    if (circuit) circuit.probing = false;
  }

  /** Of `keys`, the one whose last failure is oldest: the likeliest to have recovered. */
  leastRecentlyFailed(keys: string[]): string | undefined {
    let best: string | undefined;
    let bestAt = Infinity;
    for (const key of keys) {
      const at = this.circuits.get(key)?.lastFailureAt ?? -Infinity;
      if (at < bestAt) {
        best = key;
        bestAt = at;
      }
    }
    return best;
  }

  /** The circuits open now (calls skipped until the cooldown ends), with when each opened. */
  openCircuits(): Array<{ key: string; openedAt: number }> {
    const open: Array<{ key: string; openedAt: number }> = [];
    for (const [key, circuit] of this.circuits) {
      if (circuit.openedAt !== undefined && this.state(key) === 'open') open.push({ key, openedAt: circuit.openedAt });
    }
    return open;
  }

  /** Milliseconds until `key` may be probed again (0 when it is not open). */
  msUntilProbe(key: string): number {
    const openedAt = this.circuits.get(key)?.openedAt;
    if (openedAt === undefined) return 0;
    return Math.max(0, openedAt + this.options.cooldownMs - this.now());
  }

  /** Consecutive failures recorded for `key` (0 when closed and clean). */
  failures(key: string): number {
    return this.circuits.get(key)?.failures ?? 0;
  }
}
