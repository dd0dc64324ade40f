import { SettlementOutbox, type AccountRecord, type CreditsRepo, type LedgerPage } from '../../store/index.ts';
import type { Clock, Logger } from '../../util/index.ts';
import type { CreditsPort, CreditsReading, HoldInput, Settled, SettleInput, UsageSummary } from '../types.ts';
import { Heartbeat } from './heartbeat.ts';
import { PendingWork } from './pending-work.ts';
import { SharedAdmission } from './shared-admission.ts';
import { flushItem, SharedSettlement } from './shared-settlement.ts';
import { SharedViews } from './shared-views.ts';
import type { SharedHold } from './slice.ts';
import { SliceLeases } from './slice-leases.ts';

export interface SharedCreditsOptions {
  repo: CreditsRepo;
  clock: Clock;
  log: Logger;
  /** `billing.enforce`: check and cap charges by the balance. */
  enforce: boolean;
  /** Where the settlement outbox lives (`settlements.jsonl`). */
  dataDir: string;
  /** How often this instance says it is alive and sweeps others' stale holds (ms, default 5,000). */
  beatMs?: number;
  /** Holds of an instance not seen for this long are given back (ms, default 30,000). */
  staleMs?: number;
  /** `store.flushMs`: the longest a settlement waits in the outbox before its group is sent (default 20). */
  flushMs?: number;
  /** `store.leaseIdleMs`: a slice unused this long goes back to the account (default 1,000). */
  leaseIdleMs?: number;
  /** Settlements waiting for the database past which admission answers 503 (default `MAX_OUTBOX_BACKLOG`). */
  maxBacklog?: number;
  /** Told when the outbox cannot be written (billed requests are refused until the data dir can be). */
  storage?: { failed(error: unknown, what: string): void; check(): void };
  /** `billing.ledgerSyncMs` / `billing.ledgerGroupMs` for the outbox file. */
  syncIntervalMs?: number;
  groupCommitMs?: number;
}

/**
 * Credits across instances (docs/scale-out.md), composed of one part per job: the heartbeat
 * (heartbeat.ts), this instance's leased slices (slice-leases.ts), admission and release
 * (shared-admission.ts), settlement through the local outbox (shared-settlement.ts) and the
 * read views (shared-views.ts). This class starts and stops them. Used by the account guards
 * when the store shares credits.
 */
export class SharedCredits implements CreditsPort {
  readonly outbox: SettlementOutbox;
  private readonly pending = new PendingWork();
  private readonly heartbeat: Heartbeat;
  private readonly leases: SliceLeases;
  private readonly admission: SharedAdmission;
  private readonly settlement: SharedSettlement;
  private readonly views: SharedViews;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: SharedCreditsOptions) {
    const track = <T>(promise: Promise<T>) => this.pending.track(promise);
    this.outbox = new SettlementOutbox({
      dataDir: o.dataDir,
      log: o.log,
      flushMs: o.flushMs,
      syncIntervalMs: o.syncIntervalMs,
      groupCommitMs: o.groupCommitMs,
      ship: (lines) => o.repo.flush(lines.map(flushItem), o.enforce),
      onShipped: (lines, outcomes) => this.leases.shipped(lines, outcomes),
    });
    this.leases = new SliceLeases({ repo: o.repo, log: o.log, flush: () => this.outbox.flush(), leaseIdleMs: o.leaseIdleMs, track });
    this.heartbeat = new Heartbeat({
      repo: o.repo,
      log: o.log,
      beatMs: o.beatMs,
      staleMs: o.staleMs,
      onGap: () => this.leases.suspectAll(),
      afterBeat: () => this.admission.releaseAbandoned(),
    });
    this.admission = new SharedAdmission({
      repo: o.repo,
      clock: o.clock,
      log: o.log,
      enforce: o.enforce,
      maxBacklog: o.maxBacklog,
      outbox: this.outbox,
      leases: this.leases,
      beatsFresh: () => this.heartbeat.fresh,
      track,
    });
    this.settlement = new SharedSettlement({ repo: o.repo, log: o.log, outbox: this.outbox, leases: this.leases, storage: o.storage, track, ownsHold: (hold) => this.admission.ownsHold(hold) });
    this.views = new SharedViews({ repo: o.repo, clock: o.clock, outbox: this.outbox, admission: this.admission, leases: this.leases });
    o.repo.onRecall?.((accountId) => this.leases.recalled(accountId));
  }

  /** Says this instance is alive, gives back stale holds, sends what the outbox kept; then every `beatMs`. */
  async start(): Promise<void> {
    await this.heartbeat.beat();
    await this.sendKept();
    this.heartbeat.start();
    this.idleTimer = setInterval(
      () => {
        this.leases.returnIdle();
        this.admission.forgetOldRecalls();
      },
      Math.max(50, Math.min(250, this.leases.idleMs / 4)),
    );
    this.idleTimer.unref();
  }

  /** Holds a request's credits: from this instance's slice at once, else from the database (see `SharedAdmission.hold`). */
  hold(input: HoldInput): SharedHold | Promise<SharedHold> {
    return this.admission.hold(input);
  }

  /** Gives a hold back without a charge (the request used nothing): to the slice at once, or to the database in the background. */
  release(hold: SharedHold): void {
    this.admission.release(hold);
  }

  /** Appends the request's line to the outbox (see `SharedSettlement.settle`). */
  settle(input: SettleInput): Settled {
    return this.settlement.settle(input);
  }

  read(accountId?: string, options: { balance?: boolean } = {}): Promise<CreditsReading> {
    return this.views.read(accountId, options);
  }

  requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    return this.views.requests(accountId, page);
  }

  billedRequests(prefix: string): Promise<Set<string>> {
    return this.views.billedRequests(prefix);
  }

  summarizeUsage(accounts: readonly AccountRecord[]): Promise<UsageSummary> {
    return this.views.summarizeUsage(accounts);
  }

  /** The account's balance, what requests in flight hold and what slices lease (see `SharedViews.balance`). */
  balance(accountId: string): Promise<{ credits: number; reserved: number; leased: number } | undefined> {
    return this.views.balance(accountId);
  }

  /** Waits for settlements and releases in flight, sends the outbox, gives the slices back, then says this instance is gone. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.heartbeat.stop();
    this.leases.stop();
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    await this.pending.drain();
    await this.outbox.close();
    // A lease whose lines are not all in stays until the sweep (its lines charge it at the next start).
    await this.leases.close(this.outbox.unshipped().length === 0);
    await this.o.repo.leave().catch(() => undefined);
  }

  /** Settlements a previous run of this data dir kept (a crash) are sent; then the slices it leased go back at once, not after the sweep. */
  private async sendKept(): Promise<void> {
    const kept = this.outbox.unshipped();
    if (kept.length === 0) return;
    const lines = kept.length;
    const leases = new Set(kept.flatMap((l) => (l.lease ? [l.lease] : [])));
    const sent = await this.outbox.flush().then(
      () => true,
      (error: unknown) => {
        this.o.log.warn('credits: settlements kept in the data dir are not recorded yet; sent again shortly', { lines, error: String(error) });
        return false;
      },
    );
    if (!sent) return;
    this.o.log.info('credits: settlements kept in the data dir are now recorded', { settled: lines });
    // That run's instance id is not this one's: `release` would leave its slices to the sweep.
    await Promise.allSettled([...leases].map((lease) => this.o.repo.releaseLeft(lease)));
  }
}
