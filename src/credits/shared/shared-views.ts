import { roundCredits } from '../../billing/index.ts';
import type { AccountRecord, CreditsRepo, LedgerPage, LedgerRecord } from '../../store/index.ts';
import { UsageIndex, utcPeriods } from '../../usage/index.ts';
import type { Clock } from '../../util/index.ts';
import type { CreditsReading, UsageSummary } from '../types.ts';
import { DAY_MS } from './period-keys.ts';
import type { SharedAdmission } from './shared-admission.ts';
import type { SliceLeases } from './slice-leases.ts';
import { summarizeSharedLedger } from './summarize-shared-ledger.ts';

export interface SharedViewsOptions {
  repo: CreditsRepo;
  clock: Clock;
  /** This instance's settlements on their way to the database (sent before a view reads). */
  outbox: { flush(): Promise<void> };
  admission: SharedAdmission;
  leases: SliceLeases;
}

/** The first instant whose usage the views need by day: the month's start or 29 days back, whichever is earlier. */
function windowStart(now: number): number {
  const d = new Date(now);
  return Math.min(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), utcPeriods(now).dayStart - 29 * DAY_MS);
}

/**
 * The read views of the shared ledger (usage aggregates, balance and holds, an account's
 * requests, billed request ids). Read per view call, after this instance's outbox is sent;
 * the request path never reads these.
 */
export class SharedViews {
  constructor(private readonly o: SharedViewsOptions) {}

  /** The views show this instance's finished requests: its outbox is sent first (a database that does not answer is reported by the read after). */
  private async caughtUp(): Promise<void> {
    await this.o.outbox.flush().catch(() => undefined);
  }

  /**
   * The usage aggregates of one account (or all) from the shared ledger: by day since the
   * start of the month or 29 days back (the views' periods), all-time totals from the keys'
   * running sums. Read per view call; the request path never reads these.
   */
  async usage(accountId?: string): Promise<{ usage: UsageIndex; keyReserved: Map<string, number> }> {
    await this.caughtUp();
    const now = this.o.clock.now();
    const [totals, keys] = await Promise.all([this.o.repo.usageTotals({ accountId, since: windowStart(now) }), this.o.repo.keySpend(accountId)]);
    const usage = new UsageIndex();
    const inWindow = new Map<string, number>();
    for (const row of totals) {
      usage.addTotals(row);
      inWindow.set(row.keyId, (inWindow.get(row.keyId) ?? 0) + row.credits);
    }
    const keyReserved = new Map<string, number>();
    for (const key of keys) {
      usage.addOlderSpend(key.accountId, key.keyId, roundCredits(key.total - (inWindow.get(key.keyId) ?? 0)));
      if (key.reserved !== 0) keyReserved.set(key.keyId, key.reserved);
    }
    return { usage, keyReserved };
  }

  /**
   * The account's balance and what requests in flight hold: their own holds on every
   * instance, and what this instance's requests hold in its slice. Leased slices themselves are
   * not counted (they are the account's credit, lent to an instance for admission, and go back
   * after `leaseIdleMs` unused): `leased` says how much.
   */
  async balance(accountId: string): Promise<{ credits: number; reserved: number; leased: number } | undefined> {
    await this.caughtUp();
    await this.o.admission.releasesOf(accountId);
    const state = await this.o.repo.state(accountId);
    if (!state) return undefined;
    const local = this.o.leases.get(accountId)?.reserved ?? 0;
    return { credits: state.credits, reserved: roundCredits(Math.max(0, state.reserved - state.leased) + local), leased: state.leased };
  }

  /** The request ids in the ledger that start with `prefix` (a resumed batch skips lines already billed). */
  async billedRequests(prefix: string): Promise<Set<string>> {
    await this.caughtUp();
    return this.o.repo.billedRequests(prefix);
  }

  /** One account's ledger rows, newest first (the dashboard's recent requests). */
  async recentLedger(query: { accountId: string; before?: { ts: number; seq: number }; limit: number }): Promise<LedgerRecord[]> {
    await this.caughtUp();
    return this.o.repo.recentLedger(query);
  }

  async read(accountId?: string, options: { balance?: boolean } = {}): Promise<CreditsReading> {
    const [{ usage, keyReserved }, balance] = await Promise.all([this.usage(accountId), accountId && options.balance ? this.balance(accountId) : undefined]);
    const reading: CreditsReading = { usage, reservedForKey: (keyId) => keyReserved.get(keyId) ?? 0 };
    if (balance) reading.balance = { credits: balance.credits, reserved: balance.reserved };
    return reading;
  }

  /** Cursor `<ts>:<seq>` of the last row of the previous page. */
  async requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    const [ts, seq] = (page.cursor ?? '').split(':').map(Number);
    const before = Number.isSafeInteger(ts) && Number.isSafeInteger(seq) && page.cursor ? { ts, seq } : undefined;
    const data = await this.recentLedger({ accountId, before, limit: page.limit });
    const last = data[data.length - 1];
    return { data, next: data.length === page.limit && last ? `${last.ts}:${last.seq}` : null };
  }

  /** The operator's usage view of `accounts`, this instance's finished requests included. */
  async summarizeUsage(accounts: readonly AccountRecord[]): Promise<UsageSummary> {
    await this.caughtUp();
    return summarizeSharedLedger(this.o.repo, accounts);
  }
}
