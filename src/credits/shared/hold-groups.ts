import type { CreditsRepo, HoldOutcome, HoldRequest } from '../../store/index.ts';

/**
 * How long the hold of an admission whose call failed is given back again at each heartbeat:
 * the database may take the call after the gateway gave up on it (its answer lost with the
 * connection, or a commit after the query timeout; the server itself stops a statement after
 * `store.queryTimeoutMs`), and a hold of a live instance is never swept.
 */
export const ABANDONED_MS = 120_000;

/** Admissions asked of the database in natural groups: at once when none is on its way, else together with the others that wait. */
export class HoldGroups {
  private holds: Array<{ request: HoldRequest; resolve: (outcome: HoldOutcome) => void; reject: (error: unknown) => void }> = [];
  private holding = false;
  /** Request ids whose admission call failed (the request was refused), until when their hold is given back. */
  private readonly abandoned = new Map<string, number>();

  constructor(private readonly repo: CreditsRepo) {}

  /** The database's answer to one admission (a group's call failing rejects each of its admissions). */
  send(request: HoldRequest): Promise<HoldOutcome> {
    return new Promise<HoldOutcome>((resolve, reject) => {
      this.holds.push({ request, resolve, reject });
      if (!this.holding) void this.sendGroups();
    });
  }

  /**
   * Gives back the holds the database may have taken for admissions whose call failed (at each
   * heartbeat, for `ABANDONED_MS`); resolves to how many it found. A request id admitted again
   * meanwhile (a batch line retried) is left alone.
   */
  async releaseAbandoned(): Promise<number> {
    const now = Date.now();
    for (const [id, until] of this.abandoned) if (until <= now) this.abandoned.delete(id);
    const released = await Promise.all([...this.abandoned.keys()].map((id) => this.repo.release(id).catch(() => false)));
    return released.filter(Boolean).length;
  }

  private async sendGroups(): Promise<void> {
    this.holding = true;
    while (this.holds.length > 0) {
      const group = this.holds.splice(0, 500);
      try {
        const outcomes = await this.repo.holdMany(group.map((g) => g.request));
        group.forEach((g, i) => {
          if (outcomes[i].outcome === 'ok') this.abandoned.delete(g.request.requestId);
          g.resolve(outcomes[i]);
        });
      } catch (error) {
        const until = Date.now() + ABANDONED_MS;
        for (const g of group) {
          this.abandoned.set(g.request.requestId, until);
          g.reject(error);
        }
      }
    }
    this.holding = false;
  }
}
