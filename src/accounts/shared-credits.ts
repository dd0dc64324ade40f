import { balanceError, ceilingError, roundCredits } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';
import type { SettledCharge } from '../observability/index.ts';
import type { CreditsRepo, HoldOutcome, HoldRequest, SettleRequest } from '../store/repositories.ts';
import type { AccountRecord, ApiKeyRecord, LedgerRecord, PeriodKeys } from '../store/types.ts';
import { UsageIndex } from '../usage/usage-index.ts';
import { utcPeriods } from '../usage/utc-periods.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { newId } from '../util/index.ts';
import { SettlementOutbox } from './settlement-outbox.ts';
import { nextMonthStart, nextResetAt } from './spend-period.ts';

/** Credits and tokens a request holds in the shared database until it settles. */
export interface SharedHold {
  readonly requestId: string;
  readonly credits: number;
  readonly tokens: number;
  open: boolean;
}

/** A ledger row as the guards build it (the database decides `charged_credits`). */
export type SharedEntry = SettleRequest['entry'];

export interface SharedCreditsOptions {
  repo: CreditsRepo;
  clock: Clock;
  log: Logger;
  /** `billing.enforce`: check and cap charges by the balance. */
  enforce: boolean;
  /** Where settlements wait while the database cannot take them. */
  dataDir: string;
  /** How often this instance says it is alive and sweeps others' stale holds (ms, default 5,000). */
  beatMs?: number;
  /** Holds of an instance not seen for this long are given back (ms, default 30,000). */
  staleMs?: number;
}

const DAY_MS = 86_400_000;
/** Waits between settlement attempts before the charge goes to the outbox. */
const SETTLE_RETRIES_MS = [50, 250, 1_000];

function periodKeys(now: number): PeriodKeys {
  const p = utcPeriods(now);
  return { day: p.day, week: p.week, month: p.month };
}

/** The first instant whose usage the views need by day: the month's start or 29 days back, whichever is earlier. */
function windowStart(now: number): number {
  const d = new Date(now);
  return Math.min(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), utcPeriods(now).dayStart - 29 * DAY_MS);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Credits across instances (docs/scale-out.md): admission holds credits and tokens with one
 * database call that checks the quota, the key's spend limit, the account's monthly cap and
 * the balance against what every instance has spent and holds; settlement inserts the ledger
 * row keyed by request id and moves the balance in one transaction, exactly once. Used by
 * the account guards when the store shares credits (`store.credits`).
 */
export class SharedCredits {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly outbox: SettlementOutbox;
  private timer: NodeJS.Timeout | undefined;
  private draining = false;
  private closed = false;

  constructor(private readonly o: SharedCreditsOptions) {
    this.outbox = new SettlementOutbox(o.dataDir);
  }

  /** Says this instance is alive, gives back stale holds, sends kept settlements; then every `beatMs`. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.beatMs ?? 5_000);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.o.repo.beat();
      const released = await this.o.repo.releaseStale(this.o.staleMs ?? 30_000);
      if (released > 0) this.o.log.info('credits: gave back the holds of requests on instances that stopped', { holds: released });
      await this.drainOutbox();
    } catch (error) {
      this.o.log.warn('credits: the shared database did not answer the heartbeat', { error: String(error) });
    }
  }

  private async drainOutbox(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      const { sent, left } = await this.outbox.drain((request) => this.o.repo.settle(request));
      if (sent > 0) this.o.log.info('credits: settlements kept while the database was unreachable are now recorded', { settled: sent, left });
    } finally {
      this.draining = false;
    }
  }

  /**
   * Holds `credits` and `tokens` for a request, or throws what the database refused with:
   * 429 quota_exceeded, 402 insufficient_balance (key limit, account cap, balance), or 503
   * when the database does not answer.
   */
  async hold(input: { requestId?: string; account: AccountRecord; key: ApiKeyRecord; credits: number; tokens: number; needsBalance: boolean }): Promise<SharedHold> {
    const requestId = input.requestId || newId('req', 16);
    const now = this.o.clock.now();
    let outcome: HoldOutcome;
    try {
      outcome = await this.holdGrouped({
        requestId,
        accountId: input.account.id,
        keyId: input.key.id,
        credits: input.credits,
        tokens: input.tokens,
        enforce: this.o.enforce,
        needsBalance: input.needsBalance,
        periods: periodKeys(now),
      });
    } catch (error) {
      this.o.log.error('credits: the shared database did not take an admission', { error: String(error) });
      throw new GatewayError('service_unavailable', 'Billing is unavailable right now (the database did not take the admission); retry shortly.');
    }
    if (outcome.outcome !== 'ok') throw this.refusal(outcome, input, now);
    return { requestId, credits: input.credits, tokens: input.tokens, open: true };
  }

  private holds: Array<{ request: HoldRequest; resolve: (outcome: HoldOutcome) => void; reject: (error: unknown) => void }> = [];
  private holding = false;

  /** Natural grouping, as for settlements: at once when none is on its way, else together with the others that wait. */
  private holdGrouped(request: HoldRequest): Promise<HoldOutcome> {
    return new Promise<HoldOutcome>((resolve, reject) => {
      this.holds.push({ request, resolve, reject });
      if (!this.holding) void this.sendHolds();
    });
  }

  private async sendHolds(): Promise<void> {
    this.holding = true;
    while (this.holds.length > 0) {
      const group = this.holds.splice(0, 500);
      try {
        const outcomes = await this.o.repo.holdMany(group.map((g) => g.request));
        group.forEach((g, i) => g.resolve(outcomes[i]));
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.holding = false;
  }

  private refusal(o: HoldOutcome, input: { account: AccountRecord; key: ApiKeyRecord; credits: number; tokens: number }, now: number): GatewayError {
    switch (o.outcome) {
      case 'quota':
        return new GatewayError('quota_exceeded', `The monthly token quota of ${o.limit} tokens is used up (${o.used} used this month); it resets at the start of next month (UTC).`, {
          details: { quota: o.limit, used: o.used, in_flight: o.reservedTokens, requested: input.tokens, resets_at: nextMonthStart(now) },
        });
      case 'key_limit': {
        const reset = input.key.limitReset ?? null;
        return ceilingError({ scope: 'key', id: input.key.id, limit: o.limit, spent: o.used, reset, resetsAt: nextResetAt(reset, now) }, input.credits, roundCredits(o.reserved));
      }
      case 'account_cap':
        return ceilingError({ scope: 'account', id: input.account.id, limit: o.limit, spent: o.used, reset: 'monthly', resetsAt: nextMonthStart(now) }, input.credits, roundCredits(o.reserved));
      case 'no_account':
        return new GatewayError('invalid_api_key', 'The account of this API key no longer exists.');
      default:
        return balanceError(input.credits, o.credits, roundCredits(o.reserved));
    }
  }

  /** Gives a hold back without a charge (the request used nothing); in the background. */
  release(hold: SharedHold): void {
    if (!hold.open) return;
    hold.open = false;
    this.track(
      this.o.repo.release(hold.requestId).catch((error: unknown) => {
        // Not lost: the hold is given back by the sweep once this instance stops, or stays counted until then.
        this.o.log.warn('credits: releasing a hold failed', { request_id: hold.requestId, error: String(error) });
      }),
    );
  }

  /**
   * Settles a request (the ledger row, the charge, the hold given back) in one transaction.
   * Resolves once it is committed, or, if the database keeps failing, once the settlement is
   * kept in the outbox; sets `charge.charged` to what the database took. Never rejects.
   */
  settle(hold: SharedHold | undefined, entry: SharedEntry, charge: SettledCharge): Promise<void> {
    if (hold) hold.open = false;
    const request: SettleRequest = { entry, enforce: this.o.enforce, periods: periodKeys(entry.ts) };
    return this.track(this.settleGrouped(request, charge));
  }

  /**
   * Natural grouping: with no settlement on its way the call goes at once; settlements that
   * arrive meanwhile wait for it and then go together in one call (one round trip, one
   * commit), so a lone request waits for nothing extra and a busy instance sends fewer statements.
   */
  private settleGrouped(request: SettleRequest, charge: SettledCharge): Promise<void> {
    return new Promise<void>((resolve) => {
      this.queue.push({ request, charge, done: resolve });
      if (!this.sending) void this.sendQueued();
    });
  }

  private queue: Array<{ request: SettleRequest; charge: SettledCharge; done: () => void }> = [];
  private sending = false;

  private async sendQueued(): Promise<void> {
    this.sending = true;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, 500);
      try {
        const outcomes = await this.o.repo.settleMany(group.map((g) => g.request));
        group.forEach((g, i) => {
          g.charge.charged = outcomes[i].charged;
          g.done();
        });
      } catch {
        // Each one on its own, with retries and the outbox (in the background: the group goes on).
        for (const g of group) void this.settleWithRetries(g.request, g.charge, 0).then(g.done);
      }
    }
    this.sending = false;
  }

  private async settleWithRetries(request: SettleRequest, charge: SettledCharge, first = 0): Promise<void> {
    for (let attempt = first; ; attempt++) {
      try {
        const outcome = await this.o.repo.settle(request);
        charge.charged = outcome.charged;
        return;
      } catch (error) {
        if (attempt < SETTLE_RETRIES_MS.length && !this.closed) {
          await sleep(SETTLE_RETRIES_MS[attempt]);
          continue;
        }
        try {
          this.outbox.keep(request);
          this.o.log.error('credits: the database did not take a settlement; kept in the data dir until it does', { request_id: request.entry.request_id, error: String(error) });
        } catch (keepError) {
          this.o.log.error('credits: a settlement could not be recorded anywhere; its charge is lost', { request_id: request.entry.request_id, error: String(keepError) });
        }
        return;
      }
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const done = () => this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /**
   * The usage aggregates of one account (or all) from the shared ledger: by day since the
   * start of the month or 29 days back (the views' periods), all-time totals from the keys'
   * running sums. Read per view call; the request path never reads these.
   */
  async usage(accountId?: string): Promise<{ usage: UsageIndex; keyReserved: Map<string, number> }> {
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

  /** The account's balance and what requests in flight on every instance hold. */
  async balance(accountId: string): Promise<{ credits: number; reserved: number } | undefined> {
    const state = await this.o.repo.state(accountId);
    return state && { credits: state.credits, reserved: state.reserved };
  }

  /** The request ids in the ledger that start with `prefix` (a resumed batch skips lines already billed). */
  billedRequests(prefix: string): Promise<Set<string>> {
    return this.o.repo.billedRequests(prefix);
  }

  /** Ledger rows (tests, `gateway usage`). */
  ledger(query: { accountId?: string; afterSeq?: number; limit: number }): Promise<LedgerRecord[]> {
    return this.o.repo.ledger(query);
  }

  /** Waits for settlements and releases in flight, then says this instance is gone. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    this.closed = true;
    await this.o.repo.leave().catch(() => undefined);
  }
}
