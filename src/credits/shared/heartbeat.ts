import type { CreditsRepo } from '../../store/index.ts';
import type { Logger } from '../../util/index.ts';

export interface HeartbeatOptions {
  repo: CreditsRepo;
  log: Logger;
  /** How often this instance says it is alive and sweeps others' stale holds (ms, default 5,000). */
  beatMs?: number;
  /** Holds of an instance not seen for this long are given back (ms, default 30,000). */
  staleMs?: number;
  /** Beats stopped reaching the database for long enough that another instance may have swept this one's lease holds. */
  onGap(): void;
  /** After each beat that reached the database: this instance's own clean-up there. */
  afterBeat?(): Promise<void>;
}

/**
 * This instance's heartbeat in the shared database: says it is alive, gives back the holds of
 * instances that stopped, and knows whether its own lease holds can have been swept.
 */
export class Heartbeat {
  /** When the last heartbeat that reached the database was sent; slices admit only within `freshMs` of it. */
  private lastBeatOk = 0;
  /** Half the stale time: a lease hold cannot have been swept while beats are this recent. */
  private readonly freshMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: HeartbeatOptions) {
    this.freshMs = (o.staleMs ?? 30_000) / 2;
  }

  /** Beats reach the database: no other instance can have swept this one's lease holds. */
  get fresh(): boolean {
    return Date.now() - this.lastBeatOk < this.freshMs;
  }

  /** One beat, then one every `beatMs`. */
  start(): void {
    this.timer = setInterval(() => void this.beat(), this.o.beatMs ?? 5_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Says this instance is alive and gives back the stale holds of others; a database that does not answer is logged. */
  async beat(): Promise<void> {
    try {
      // The database stamps seen_at when the statement runs, at or after it is sent: freshness counts from the sending (a late answer must not extend it).
      const sent = Date.now();
      await this.o.repo.beat();
      const now = Date.now();
      if (this.lastBeatOk > 0 && now - this.lastBeatOk >= this.freshMs) this.o.onGap();
      this.lastBeatOk = Math.max(this.lastBeatOk, sent);
      const released = await this.o.repo.releaseStale(this.o.staleMs ?? 30_000);
      if (released > 0) this.o.log.info('credits: gave back the holds of requests on instances that stopped', { holds: released });
      await this.o.afterBeat?.();
    } catch (error) {
      this.o.log.warn('credits: the shared database did not answer the heartbeat', { error: String(error) });
    }
  }
}
