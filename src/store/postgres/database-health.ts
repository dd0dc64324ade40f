import type pg from 'pg';
import type { DatabaseState } from '../types.ts';
import { isDatabaseUnreachable } from './unreachable.ts';

/** How often the database is tried again while it cannot be reached (ms). */
const PROBE_MS = 1_000;
/** The longest a probe waits for its answer (a frozen server): the next one tries again. */
const PROBE_TIMEOUT_MS = 2_000;

function reason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' && e.code !== '' ? e.code : String(e.message ?? error).split('\n')[0].slice(0, 200);
}

/**
 * Whether the shared database can be reached, from memory (no query per /health poll). A
 * failure that says the database is away (isDatabaseUnreachable: a request's query, a pooled
 * connection lost while idle) marks it unreachable; from then on a bounded `select 1` is sent
 * every PROBE_MS, and the first answer marks it reachable again.
 */
export class DatabaseHealth {
  private failure: { error: string; since: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log?: (message: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** Something failed on the database: if it says the database is away, report it until a probe is answered. */
  failed(error: unknown): void {
    if (!isDatabaseUnreachable(error)) return;
    if (!this.failure) {
      this.failure = { error: reason(error), since: Math.floor(Date.now() / 1000) };
      this.log?.('store: PostgreSQL cannot be reached; /health says unavailable until it answers', { error: this.failure.error });
    }
    this.timer ??= setInterval(() => void this.probe(), PROBE_MS);
    this.timer.unref();
  }

  state(): DatabaseState {
    return this.failure ? { store: 'postgres', reachable: false, error: this.failure.error, since: this.failure.since } : { store: 'postgres', reachable: true };
  }

  private async probe(): Promise<void> {
    if (this.probing || !this.failure) return;
    this.probing = true;
    try {
      await this.pool.query({ text: 'select 1', query_timeout: PROBE_TIMEOUT_MS } as pg.QueryConfig);
      this.failure = undefined;
      this.stop();
      this.log?.('store: PostgreSQL answers again');
    } catch {
      // still away: the next probe tries again
    } finally {
      this.probing = false;
    }
  }

  /** Stops probing (the store is closing, or the database answered). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
