import { failedBeforeSending, type CreditsRepo, type HoldOutcome, type HoldRequest } from '../../store/index.ts';

/**
 * How long the hold of an admission whose call failed is given back again at each heartbeat:
 * the database may take the call after the gateway gave up on it (its answer lost with the
 * connection, or a commit after the query timeout; the server itself stops a statement after
 * `store.queryTimeoutMs`), and a hold of a live instance is never swept.
 */
export const ABANDONED_MS = 120_000;
/** Holds waiting to be given back at most (past it, they wait for the sweep after this instance stops). */
const MAX_GIVE_BACK = 10_000;

/** Admissions asked of the database in natural groups: at once when none is on its way, else together with the others that wait. */
export class HoldGroups {
  private holds: Array<{ request: HoldRequest; resolve: (outcome: HoldOutcome) => void; reject: (error: unknown) => void }> = [];
  private holding = false;
  /** Holds no request uses that the database may keep (see `giveBackLater`), by request id: until when to try again once answered. */
  private readonly giveBack = new Map<string, number>();

  constructor(private readonly repo: CreditsRepo) {}

  /** The database's answer to one admission (a group's call failing rejects each of its admissions). */
  send(request: HoldRequest): Promise<HoldOutcome> {
    return new Promise<HoldOutcome>((resolve, reject) => {
      this.holds.push({ request, resolve, reject });
      if (!this.holding) void this.sendGroups();
    });
  }

  /**
   * A hold no request uses that the database may keep: an admission whose call failed after it
   * was sent (`untilMs`: the database may still take it that long after), or a release that
   * failed (0: given back once the database answers). A live instance's holds are never swept.
   */
  giveBackLater(requestId: string, untilMs = 0): void {
    if (this.giveBack.size < MAX_GIVE_BACK || this.giveBack.has(requestId)) this.giveBack.set(requestId, Date.now() + untilMs);
  }

  /**
   * Gives back those holds (after each heartbeat; `gw_release` is a no-op for a hold that is not
   * there); resolves to how many it found. A request id admitted again meanwhile (a batch line
   * retried) is left alone.
   */
  async releaseAbandoned(): Promise<number> {
    const now = Date.now();
    const answers = await Promise.all(
      [...this.giveBack.keys()].map((id) =>
        this.repo.release(id).then(
          (released) => ({ id, released, answered: true }),
          () => ({ id, released: false, answered: false }),
        ),
      ),
    );
    for (const a of answers) if (a.answered && (this.giveBack.get(a.id) ?? Infinity) <= now) this.giveBack.delete(a.id);
    return answers.filter((a) => a.released).length;
  }

  private async sendGroups(): Promise<void> {
    this.holding = true;
    while (this.holds.length > 0) {
      const group = this.holds.splice(0, 500);
      try {
        const outcomes = await this.repo.holdMany(group.map((g) => g.request));
        group.forEach((g, i) => {
          if (outcomes[i].outcome === 'ok') this.giveBack.delete(g.request.requestId);
          g.resolve(outcomes[i]);
        });
      } catch (error) {
        for (const g of group) {
          if (!failedBeforeSending(error)) this.giveBackLater(g.request.requestId, ABANDONED_MS);
          g.reject(error);
        }
      }
    }
    this.holding = false;
  }
}
