import { roundCredits } from '../../billing/index.ts';
import { balanceError, ceilingError } from '../credit-refusals.ts';
import { GatewayError } from '../../errors/index.ts';
import type { SettledCharge } from '../../observability/index.ts';
import type { CreditsRepo, FlushItem, HoldOutcome, HoldRequest, SettleOutcome, SettleRequest } from '../../store/index.ts';
import type { AccountRecord, ApiKeyRecord, LedgerRecord, PeriodKeys } from '../../store/index.ts';
import { UsageIndex } from '../../usage/index.ts';
import { utcPeriods } from '../../usage/index.ts';
import type { Clock } from '../../util/index.ts';
import type { CreditsPort, CreditsReading, HoldInput, Settled, SettleInput } from '../types.ts';
import type { Logger } from '../../util/index.ts';
import { newId } from '../../util/index.ts';
import { recordNotWritten, type LedgerPage } from '../../store/index.ts';
import { SettlementOutbox, type NewOutboxLine, type OutboxLine } from '../../store/index.ts';
import { nextMonthStart, nextResetAt } from '../spend-period.ts';

/** Credits and tokens a request holds until it settles: in the shared database, or in this instance's leased slice. */
export interface SharedHold {
  readonly requestId: string;
  readonly credits: number;
  readonly tokens: number;
  open: boolean;
  /** Admitted from this instance's leased slice of the account (no database call); absent: a hold row of its own, or none. */
  readonly slice?: Slice;
  /** The account of a hold row of its own (its release is waited for by the account's next admission). */
  readonly accountId?: string;
}

/** A ledger row as the guards build it (the database decides `charged_credits` unless the request came from a slice). */
export type SharedEntry = SettleRequest['entry'];

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

const DAY_MS = 86_400_000;
/** A slice is leased for this many requests of the size that asked (topped up when a quarter is left). */
const SLICE_REQUESTS = 256;
/**
 * Settlements waiting for the database past which admission answers 503 (the database has been
 * away for long): about 30 MB of heap and 45 MB of file, read back whole at a restart.
 */
export const MAX_OUTBOX_BACKLOG = 100_000;
/** A busy account's top-ups grow up to this many times the first (each at most a quarter of what is available). */
const MAX_GROWTH = 64;
/** Below this many requests of that size available on the account, admission is request by request (no slice). */
const MIN_SLICE_REQUESTS = 64;
/** After a top-up found too little (or a cap), requests go to the database one by one for this long before leasing is tried again. */
const EXACT_FOR_MS = 1_000;

/** The periods of the last day asked for (every line of a flush is usually of one day). */
let lastPeriods: { from: number; to: number; keys: PeriodKeys } | undefined;

function periodKeys(now: number): PeriodKeys {
  if (lastPeriods && now >= lastPeriods.from && now < lastPeriods.to) return lastPeriods.keys;
  const p = utcPeriods(now);
  const keys: PeriodKeys = { day: p.day, week: p.week, month: p.month };
  lastPeriods = { from: p.dayStart, to: p.dayStart + DAY_MS, keys };
  return keys;
}

/** The first instant whose usage the views need by day: the month's start or 29 days back, whichever is earlier. */
function windowStart(now: number): number {
  const d = new Date(now);
  return Math.min(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), utcPeriods(now).dayStart - 29 * DAY_MS);
}

/**
 * This instance's slice of one account's balance: `leased` credits held in the database under
 * `leaseId`, of which requests in flight hold `reserved` and settled requests (not shipped yet)
 * took `charged`. Admission from it is synchronous and follows the credit book's rules.
 */
export class Slice {
  leased = 0;
  charged = 0;
  reserved = 0;
  lastUse = 0;
  /** Size of the requests it was last topped up for (the next top-up's unit). */
  unit = 0;
  /** What the next top-up asks for: doubles while top-ups come less than a second apart (a busy account), back to the start when idle. */
  want = 0;
  lastTopUp = 0;
  topUp: Promise<void> | undefined;
  closing: Promise<void> | undefined;
  /** Until then requests that do not fit go to the database one by one (too little available, or a cap). */
  exactUntil = 0;
  /** The account has too little available for slices: no new holds from this one, and it goes back as soon as none is held. */
  draining = false;
  shrinking: Promise<void> | undefined;
  /** Heartbeats stopped for a while: the hold may have been swept; the next top-up trusts what the database says it holds. */
  suspect = false;

  constructor(
    readonly accountId: string,
    readonly leaseId: string,
  ) {}

  get free(): number {
    return roundCredits(this.leased - this.charged - this.reserved);
  }

  /** Holds `credits` when the slice covers them (a priced request of unknown size needs some left). */
  take(credits: number, needsBalance: boolean): boolean {
    if (this.closing || this.draining) return false;
    const free = this.free;
    if (credits > free || (needsBalance && free <= 0)) return false;
    this.reserved = roundCredits(this.reserved + credits);
    return true;
  }

  /**
   * What a request that cost `cost` charges: all of it. Within its reservation the slice covers
   * it; a request that cost more takes the rest from what the slice has free, and past that the
   * database takes it from the account's available balance when the line is sent (never below
   * zero: `gw_settle_leased` bounds the part the lease hold does not cover).
   */
  chargeable(cost: number): number {
    return cost <= 0 ? 0 : roundCredits(cost);
  }

  /** Ends a request's hold, charging `charged` (0 for a release). */
  settle(hold: SharedHold, charged: number): void {
    if (hold.open) this.reserved = roundCredits(Math.max(0, this.reserved - hold.credits));
    hold.open = false;
    this.charged = roundCredits(this.charged + charged);
  }
}

/**
 * Credits across instances (docs/scale-out.md). Admission: from this instance's leased slice
 * of the account, in memory (a top-up is one database call, in the background at a low-water
 * mark; a request the slice cannot cover waits for it); request by request with one database
 * call (`gw_reserve`) for accounts with a spend cap or token quota, keys with a spend limit,
 * and accounts with little available. Settlement: appended to the local outbox (one write(2));
 * the answer waits only for that; the outbox sends groups to the database in the background,
 * exactly once per request id. Used by the account guards when the store shares credits.
 */
export class SharedCredits implements CreditsPort {
  private readonly pending = new Set<Promise<unknown>>();
  readonly outbox: SettlementOutbox;
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly slices = new Map<string, Slice>();
  private readonly slicesByLease = new Map<string, Slice>();
  /** The last time this instance asked the others for an account's slices back, and when they have had the time to. */
  private readonly recalling = new Map<string, { at: number; done: Promise<boolean> }>();
  /** Accounts admitted request by request until then, whose slice went back. */
  private readonly exactUntil = new Map<string, number>();
  private readonly leaseIdleMs: number;
  /** When the last heartbeat that reached the database was sent; slices admit only within `freshMs` of it. */
  private lastBeatOk = 0;
  /** Half the stale time: a lease hold cannot have been swept while beats are this recent. */
  private readonly freshMs: number;

  constructor(private readonly o: SharedCreditsOptions) {
    this.leaseIdleMs = o.leaseIdleMs ?? 1_000;
    this.freshMs = (o.staleMs ?? 30_000) / 2;
    this.outbox = new SettlementOutbox({
      dataDir: o.dataDir,
      log: o.log,
      flushMs: o.flushMs,
      syncIntervalMs: o.syncIntervalMs,
      groupCommitMs: o.groupCommitMs,
      ship: (lines) => o.repo.flush(lines.map(flushItem), o.enforce),
      onShipped: (lines, outcomes) => this.shippedLines(lines, outcomes),
    });
    o.repo.onRecall?.((accountId) => this.recalled(accountId));
  }

  /**
   * Another instance was refused an admission while slices of the account may sit idle: this
   * instance admits the account request by request for a while and gives its slice back as
   * soon as no request holds anything in it.
   */
  private recalled(accountId: string): void {
    const slice = this.slices.get(accountId);
    if (!slice || this.closed) return;
    slice.exactUntil = Date.now() + EXACT_FOR_MS;
    slice.draining = true;
    this.returnIfDrained(slice);
  }

  /**
   * A refusal while other instances hold slices of the account: they are asked to give them
   * back (one notification, only when they hold any), and the database is asked again after
   * they have had the time to (50 ms, then 100 and 250 ms more on a busy peer). Admissions refused while that recall
   * is on its way wait for it too; one recall per account per `EXACT_FOR_MS`.
   */
  private async afterRecall(request: HoldRequest, outcome: HoldOutcome): Promise<HoldOutcome> {
    const recall = this.o.repo.recall?.bind(this.o.repo);
    if (!recall) return outcome;
    const now = Date.now();
    let recalling = this.recalling.get(request.accountId);
    if (!recalling || recalling.at <= now - EXACT_FOR_MS) {
      const done = recall(request.accountId).then(
        (leased) => (leased > 0 ? new Promise<boolean>((r) => setTimeout(() => r(true), 50)) : false),
        () => false,
      );
      recalling = { at: now, done };
      this.recalling.set(request.accountId, recalling);
    } else if (recalling.at < now - 250) {
      return outcome;
    }
    if (!(await recalling.done)) return outcome;
    for (const wait of [0, 100, 250]) {
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      outcome = await this.holdGrouped({ ...request, periods: periodKeys(this.o.clock.now()) }).catch(() => outcome);
      if (outcome.outcome !== 'balance') return outcome;
    }
    return outcome;
  }

  /** Says this instance is alive, gives back stale holds, sends what the outbox kept; then every `beatMs`. */
  async start(): Promise<void> {
    await this.tick();
    if (this.outbox.unshipped().length > 0) {
      const lines = this.outbox.unshipped().length;
      // Slices the previous run of this data dir leased (a crash): once its lines are in, they go back at once, not after the sweep.
      const leases = new Set(this.outbox.unshipped().flatMap((l) => (l.lease ? [l.lease] : [])));
      const sent = await this.outbox.flush().then(
        () => true,
        (error: unknown) => {
          this.o.log.warn('credits: settlements kept in the data dir are not recorded yet; sent again shortly', { lines, error: String(error) });
          return false;
        },
      );
      if (sent) {
        this.o.log.info('credits: settlements kept in the data dir are now recorded', { settled: lines });
        await Promise.allSettled([...leases].map((lease) => this.o.repo.release(lease)));
      }
    }
    this.timer = setInterval(() => void this.tick(), this.o.beatMs ?? 5_000);
    this.timer.unref();
    this.idleTimer = setInterval(() => this.returnIdle(), Math.max(50, Math.min(250, this.leaseIdleMs / 4)));
    this.idleTimer.unref();
  }

  private async tick(): Promise<void> {
    try {
      // The database stamps seen_at when the statement runs, at or after it is sent: freshness counts from the sending (a late answer must not extend it).
      const sent = Date.now();
      await this.o.repo.beat();
      const now = Date.now();
      // Beats stopped reaching the database for long enough that another instance may have swept this one's lease holds.
      if (this.lastBeatOk > 0 && now - this.lastBeatOk >= this.freshMs) for (const slice of this.slices.values()) slice.suspect = true;
      this.lastBeatOk = Math.max(this.lastBeatOk, sent);
      const released = await this.o.repo.releaseStale(this.o.staleMs ?? 30_000);
      if (released > 0) this.o.log.info('credits: gave back the holds of requests on instances that stopped', { holds: released });
    } catch (error) {
      this.o.log.warn('credits: the shared database did not answer the heartbeat', { error: String(error) });
    }
  }

  /** How a request of this account and key is admitted: from a slice, request by request in the database, or without a hold. */
  private pathOf(account: AccountRecord, key: ApiKeyRecord, credits: number, needsBalance: boolean): 'slice' | 'exact' | 'none' {
    if (account.spendCap != null || account.monthlyTokenQuota != null || key.limit != null) return 'exact';
    if (!this.o.enforce || (credits <= 0 && !needsBalance)) return 'none';
    return 'slice';
  }

  /**
   * Admission without a database call, when it can be: from this instance's slice of the
   * account, or with nothing to hold. Undefined when the database must be asked (`holdAsked`).
   */
  private holdFromSlice(input: HoldInput): SharedHold | undefined {
    const backlog = this.outbox.backlog;
    if (backlog >= (this.o.maxBacklog ?? MAX_OUTBOX_BACKLOG)) {
      throw new GatewayError('service_unavailable', `Billing is unavailable right now (${backlog} settlements wait for the database); retry shortly.`);
    }
    const path = this.pathOf(input.account, input.key, input.credits, input.needsBalance);
    if (path === 'none') return { requestId: input.requestId || newId('req', 16), credits: 0, tokens: 0, open: true };
    if (path !== 'slice' || !this.beatsFresh()) return undefined;
    const slice = this.slices.get(input.account.id);
    // A suspect slice (heartbeats had stopped: its hold may be gone) admits only after a top-up has set it to what the database holds.
    if (!slice || slice.suspect || !slice.take(input.credits, input.needsBalance)) return undefined;
    // Lease timing is wall time (a test's moved clock moves periods, not how long a slice sat unused).
    const now = Date.now();
    slice.lastUse = now;
    // Low water: a quarter of a slice left, topped up in the background.
    if (!slice.topUp && slice.exactUntil <= now && slice.free < Math.max(slice.want / 2, input.credits * (SLICE_REQUESTS / 4))) void this.topUp(slice, input.credits).catch(() => undefined);
    return { requestId: input.requestId || newId('req', 16), credits: input.credits, tokens: input.tokens, open: true, slice };
  }

  /**
   * Holds `credits` and `tokens` for a request, or throws what the database refused with:
   * 429 quota_exceeded, 402 insufficient_balance (key limit, account cap, balance), or 503
   * when the database does not answer. From the slice when it covers the request; when it
   * does not, after one top-up; request by request (one `gw_reserve`) when no slice is leased.
   * Answers at once (no promise) from the slice or with nothing to hold; else with a promise.
   */
  hold(input: HoldInput): SharedHold | Promise<SharedHold> {
    return this.holdFromSlice(input) ?? this.holdAsked(input);
  }

  /** `hold` when the slice cannot answer: a top-up, or one database call, or a refusal. */
  private async holdAsked(input: HoldInput): Promise<SharedHold> {
    const now = this.o.clock.now();
    const requestId = input.requestId || newId('req', 16);
    // A hold this account just gave back is back in the database before this one is asked for (no 402 for credit on its way back).
    const releasing = this.releasing.get(input.account.id);
    if (releasing) await releasing;
    if (this.pathOf(input.account, input.key, input.credits, input.needsBalance) === 'slice') {
      let slice = this.slices.get(input.account.id);
      if (slice?.closing) await slice.closing;
      slice = this.sliceOf(input.account.id);
      if (slice.exactUntil <= Date.now() && this.beatsFresh()) {
        try {
          await this.topUp(slice, input.credits);
        } catch (error) {
          this.o.log.error('credits: the shared database did not lease a slice', { error: String(error) });
          throw new GatewayError('service_unavailable', 'Billing is unavailable right now (the database did not take the admission); retry shortly.');
        }
        const again = this.holdFromSlice({ ...input, requestId });
        if (again) return again;
      }
    }
    let outcome: HoldOutcome;
    const request: HoldRequest = {
      requestId,
      accountId: input.account.id,
      keyId: input.key.id,
      credits: input.credits,
      tokens: input.tokens,
      enforce: this.o.enforce,
      needsBalance: input.needsBalance,
      periods: periodKeys(now),
    };
    try {
      outcome = await this.holdGrouped(request);
    } catch (error) {
      this.o.log.error('credits: the shared database did not take an admission', { error: String(error) });
      throw new GatewayError('service_unavailable', 'Billing is unavailable right now (the database did not take the admission); retry shortly.');
    }
    if (outcome.outcome !== 'ok') {
      if (outcome.outcome === 'balance') {
        // A slice topped up meanwhile (a background top-up) may still cover it.
        const fromSlice = this.holdFromSlice({ ...input, requestId });
        if (fromSlice) return fromSlice;
        // This instance's slice keeps a part too small for the request: it goes back, and the database is asked once more.
        const slice = this.slices.get(input.account.id);
        if (slice && (slice.shrinking || slice.free > 0)) {
          await this.shrink(slice);
          const again = await this.holdGrouped({ ...request, periods: periodKeys(this.o.clock.now()) }).catch(() => outcome);
          if (again.outcome === 'ok') return { requestId, credits: input.credits, tokens: input.tokens, open: true, accountId: input.account.id };
          outcome = again;
        }
        // Other instances may hold credit idle in their slices.
        if (outcome.outcome === 'balance') {
          const again = await this.afterRecall(request, outcome);
          if (again.outcome === 'ok') return { requestId, credits: input.credits, tokens: input.tokens, open: true, accountId: input.account.id };
          outcome = again;
        }
      }
      throw this.refusal(outcome, input, now);
    }
    return { requestId, credits: input.credits, tokens: input.tokens, open: true, accountId: input.account.id };
  }

  /** Beats reach the database: no other instance can have swept this one's lease holds. */
  private beatsFresh(): boolean {
    return Date.now() - this.lastBeatOk < this.freshMs;
  }

  private sliceOf(accountId: string): Slice {
    let slice = this.slices.get(accountId);
    if (!slice) {
      slice = new Slice(accountId, `lease:${this.o.repo.instance}:${accountId}`);
      slice.exactUntil = this.exactUntil.get(accountId) ?? 0;
      this.exactUntil.delete(accountId);
      this.slices.set(accountId, slice);
      this.slicesByLease.set(slice.leaseId, slice);
    }
    return slice;
  }

  /** One top-up call at a time per slice: callers that need one meanwhile wait for the same call. */
  private topUp(slice: Slice, credits: number): Promise<void> {
    if (slice.topUp) return slice.topUp;
    const unit = Math.max(credits, slice.unit);
    slice.unit = unit;
    const now = Date.now();
    const base = unit * SLICE_REQUESTS;
    slice.want = now - slice.lastTopUp < 1_000 ? Math.min(Math.max(base, slice.want * 2), base * MAX_GROWTH) : base;
    slice.lastTopUp = now;
    const topUp = this.o.repo
      .lease(slice.leaseId, slice.accountId, roundCredits(slice.want), roundCredits(unit * MIN_SLICE_REQUESTS))
      .then((outcome) => {
        if (outcome.outcome === 'ok') {
          // After a gap in the heartbeats the hold may have been swept: no more than it really has.
          slice.leased = roundCredits(slice.suspect ? Math.min(slice.leased + outcome.granted, outcome.held) : slice.leased + outcome.granted);
          slice.suspect = false;
          slice.draining = false;
          return;
        }
        // Too little available (or a cap): request by request from now on; what the slice has left goes back.
        slice.exactUntil = Date.now() + EXACT_FOR_MS;
        slice.draining = true;
        this.returnIfDrained(slice);
      })
      .finally(() => {
        slice.topUp = undefined;
      });
    slice.topUp = topUp;
    return topUp;
  }

  /** Gives back what the slice has free (one call; callers meanwhile wait for the same one). */
  private shrink(slice: Slice): Promise<void> {
    if (slice.shrinking) return slice.shrinking;
    const free = slice.free;
    if (free <= 0) return Promise.resolve();
    // Off the slice at once, so no request takes it meanwhile; a failed call leaves it in the hold until the slice goes back.
    slice.leased = roundCredits(slice.leased - free);
    slice.draining = true;
    const shrinking = this.o.repo
      .lease(slice.leaseId, slice.accountId, -free, 0)
      .then(
        () => undefined,
        (error: unknown) => this.o.log.warn('credits: giving back part of a leased slice failed', { account: slice.accountId, error: String(error) }),
      )
      .finally(() => {
        slice.shrinking = undefined;
        this.returnIfDrained(slice);
      });
    slice.shrinking = shrinking;
    return this.track(shrinking);
  }

  /** A draining slice goes back once no request holds anything in it. */
  private returnIfDrained(slice: Slice): void {
    if (slice.draining && !slice.closing && !slice.topUp && slice.reserved <= 0 && !this.closed) void this.giveBack(slice);
  }

  /** Slices unused for `leaseIdleMs` go back: their settlements are sent first, then the lease hold is given back. */
  private returnIdle(): void {
    const now = Date.now();
    for (const [account, until] of this.exactUntil) if (until <= now) this.exactUntil.delete(account);
    for (const [account, r] of this.recalling) if (r.at <= now - EXACT_FOR_MS) this.recalling.delete(account);
    for (const slice of this.slices.values()) {
      if (slice.closing || slice.topUp || slice.reserved > 0 || (!slice.draining && now - slice.lastUse < this.leaseIdleMs)) continue;
      // Given back even when it looks empty here: the hold may keep something this instance no longer counts (a failed shrink).
      void this.giveBack(slice);
    }
  }

  private giveBack(slice: Slice): Promise<void> {
    const closing = (async () => {
      try {
        await this.outbox.flush();
        await this.o.repo.release(slice.leaseId);
        this.forget(slice);
      } catch (error) {
        this.o.log.warn('credits: giving a leased slice back failed; tried again later', { account: slice.accountId, error: String(error) });
      } finally {
        slice.closing = undefined;
        slice.lastUse = Date.now();
      }
    })();
    slice.closing = closing;
    return this.track(closing);
  }

  private forget(slice: Slice): void {
    // The next slice of the account remembers that it is admitted request by request for now.
    if (slice.exactUntil > Date.now()) this.exactUntil.set(slice.accountId, slice.exactUntil);
    if (this.slices.get(slice.accountId) === slice) this.slices.delete(slice.accountId);
    this.slicesByLease.delete(slice.leaseId);
  }

  /** The outbox sent lines: what they charged left the lease holds with them. */
  private shippedLines(lines: readonly OutboxLine[], outcomes: readonly SettleOutcome[]): void {
    lines.forEach((line, i) => {
      if (!line.lease) return;
      const slice = this.slicesByLease.get(line.lease);
      if (!slice) return;
      slice.charged = roundCredits(Math.max(0, slice.charged - line.charged_credits));
      if (outcomes[i].inserted) slice.leased = roundCredits(Math.max(0, slice.leased - line.charged_credits));
    });
  }

  private holds: Array<{ request: HoldRequest; resolve: (outcome: HoldOutcome) => void; reject: (error: unknown) => void }> = [];
  private holding = false;

  /** Natural grouping: at once when none is on its way, else together with the others that wait. */
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

  /** Gives a hold back without a charge (the request used nothing): to the slice at once, or to the database in the background. */
  release(hold: SharedHold): void {
    if (!hold.open) return;
    if (hold.slice) {
      hold.slice.settle(hold, 0);
      this.returnIfDrained(hold.slice);
      return;
    }
    hold.open = false;
    if (hold.credits === 0 && hold.tokens === 0) return;
    const released = this.o.repo.release(hold.requestId).catch((error: unknown) => {
      // Not lost: the hold is given back by the sweep once this instance stops, or stays counted until then.
      this.o.log.warn('credits: releasing a hold failed', { request_id: hold.requestId, error: String(error) });
    });
    this.track(released);
    const accountId = hold.accountId;
    if (!accountId) return;
    // The account's next admission and balance read wait for the releases on their way.
    const all = Promise.all([this.releasing.get(accountId), released]).then(() => {
      if (this.releasing.get(accountId) === all) this.releasing.delete(accountId);
    });
    this.releasing.set(accountId, all);
  }

  /** Releases of holds of their own on their way to the database, by account. */
  private readonly releasing = new Map<string, Promise<unknown>>();

  /**
   * Settles a request: its line (the ledger row; from a slice, with the charge decided here
   * within the slice) is appended to the outbox and sent to the database with its group.
   * Returns what the answer's end waits for: the local write when it joined a group (undefined
   * when written at once), or with `untilRecorded` (batch lines) the database's commit. Sets
   * `charge.charged` (for a request with its own hold, the cost: the database may take less
   * if the balance ran out). Rejects (503, not charged) when the outbox line cannot be written.
   */
  settle(input: SettleInput): Settled {
    const hold = input.hold as SharedHold | undefined;
    const entry = input.entry as SharedEntry;
    entry.request_id = hold?.requestId ?? (entry.request_id || newId('req', 16));
    const charge: SettledCharge = { cost: entry.cost_credits, charged: entry.cost_credits, held: hold?.credits ?? 0 };
    const recorded = this.settleLine(hold, entry, charge, { now: input.alone, untilRecorded: input.untilBilled });
    return recorded ? { charge, recorded } : { charge };
  }

  private settleLine(hold: SharedHold | undefined, entry: SharedEntry, charge: SettledCharge, options: { now: boolean; untilRecorded?: boolean }): Promise<void> | undefined {
    let charged = roundCredits(Math.max(0, entry.cost_credits));
    let lease: string | undefined;
    if (hold?.slice) {
      charged = hold.slice.chargeable(charged);
      hold.slice.settle(hold, charged);
      lease = hold.slice.leaseId;
      if (hold.slice.draining) queueMicrotask(() => this.returnIfDrained(hold.slice!));
    } else if (hold) {
      hold.open = false;
    }
    charge.charged = charged;
    // The guards build a fresh entry per settlement: it becomes the line (no copy).
    const line = entry as NewOutboxLine;
    line.charged_credits = charged;
    if (lease) line.lease = lease;
    let written: Promise<void> | undefined;
    try {
      written = this.outbox.append(line, options.now).written;
    } catch (error) {
      return Promise.reject(this.notWritten(error, hold, charged, entry.request_id));
    }
    if (written) {
      const slice = hold?.slice;
      // A group that could not be written: its line is withdrawn (not sent, not charged) and the answer fails; resolved when a send had already taken it.
      written = written.catch((error: unknown) => {
        // The outbox already gave the slice's charge back when it skipped the line (shippedLines); a hold of its own goes back here.
        throw this.notWritten(error, slice ? undefined : hold, 0, entry.request_id);
      });
    }
    if (options.untilRecorded) {
      // Not tracked: a database that stays away must not hold up a clean stop (the line is in the data dir).
      const shipped = this.outbox.shipped().catch((error: unknown) => {
        this.o.log.warn('credits: a batch line is charged in the data dir only; sent at the next start', { request_id: entry.request_id, error: String(error) });
      });
      return written ? written.then(() => shipped) : shipped;
    }
    if (!written) return undefined;
    // Handled here (tracked for close); the caller's copy rejects so the answer fails.
    this.track(written.catch(() => undefined));
    return written;
  }

  /**
   * The settlement's outbox line could not be written (a full disk): no charge without its
   * record — the slice's charge goes back (`sliceCharge`), a hold of its own is released — and
   * billed requests are refused until the data dir can be written. Returns the 503 the answer fails with.
   */
  private notWritten(error: unknown, hold: SharedHold | undefined, sliceCharge: number, requestId: string): GatewayError {
    if (hold?.slice) hold.slice.charged = roundCredits(Math.max(0, hold.slice.charged - sliceCharge));
    else if (hold && (hold.credits > 0 || hold.tokens > 0)) {
      this.track(this.o.repo.release(hold.requestId).catch((e: unknown) => this.o.log.warn('credits: releasing a hold failed', { request_id: hold.requestId, error: String(e) })));
    }
    this.o.storage?.failed(error, 'the settlement outbox');
    this.o.log.error('credits: a settlement could not be written to the data dir; the request is not charged and its answer fails', { request_id: requestId, error: String(error) });
    return recordNotWritten(error, 'settlement outbox line');
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const done = () => this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** The views show this instance's finished requests: its outbox is sent first (a database that does not answer is reported by the read after). */
  private async caughtUp(): Promise<void> {
    await this.outbox.flush().catch(() => undefined);
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
    await this.releasing.get(accountId);
    const state = await this.o.repo.state(accountId);
    if (!state) return undefined;
    const local = this.slices.get(accountId)?.reserved ?? 0;
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

  /** Ledger rows (tests, `gateway usage`). */
  async ledger(query: { accountId?: string; afterSeq?: number; limit: number }): Promise<LedgerRecord[]> {
    await this.caughtUp();
    return this.o.repo.ledger(query);
  }

  /** Waits for settlements and releases in flight, sends the outbox, gives the slices back, then says this instance is gone. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.timer = this.idleTimer = undefined;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await this.outbox.close();
    if (this.outbox.unshipped().length === 0) {
      // A lease whose lines are not all in stays until the sweep (its lines charge it at the next start).
      await Promise.allSettled([...this.slices.values()].map((s) => this.o.repo.release(s.leaseId)));
    }
    this.slices.clear();
    this.slicesByLease.clear();
    await this.o.repo.leave().catch(() => undefined);
  }
}

/** An outbox line as the database takes it. */
function flushItem(line: OutboxLine): FlushItem {
  // The line itself is the entry (its local `seq` and `lease` are not columns the database reads from it).
  return line.lease ? { entry: line, lease: line.lease, periods: periodKeys(line.ts) } : { entry: line, periods: periodKeys(line.ts) };
}
