import { GatewayError } from '../../errors/index.ts';
import type { AccountRecord, ApiKeyRecord, CreditsRepo, HoldOutcome, HoldRequest } from '../../store/index.ts';
import type { Clock, Logger } from '../../util/index.ts';
import { newId } from '../../util/index.ts';
import type { HoldInput } from '../types.ts';
import { HoldGroups } from './hold-groups.ts';
import { periodKeys } from './period-keys.ts';
import { refuseHold } from './refuse-hold.ts';
import { EXACT_FOR_MS, SLICE_REQUESTS, type SharedHold } from './slice.ts';
import type { SliceLeases } from './slice-leases.ts';

/**
 * Settlements waiting for the database past which admission answers 503 (the database has been
 * away for long): about 30 MB of heap and 45 MB of file, read back whole at a restart.
 */
export const MAX_OUTBOX_BACKLOG = 100_000;

export interface SharedAdmissionOptions {
  repo: CreditsRepo;
  clock: Clock;
  log: Logger;
  /** `billing.enforce`: check and cap charges by the balance. */
  enforce: boolean;
  /** Settlements waiting for the database past which admission answers 503 (default `MAX_OUTBOX_BACKLOG`). */
  maxBacklog?: number;
  /** The settlement outbox (how many settlements wait for the database). */
  outbox: { readonly backlog: number };
  leases: SliceLeases;
  /** Heartbeats reach the database (a slice admits only then). */
  beatsFresh(): boolean;
  /** Counts background work a clean stop waits for. */
  track<T>(promise: Promise<T>): Promise<T>;
}

/**
 * Admission and release across instances: from this instance's leased slice of the account,
 * in memory (a top-up is one database call, in the background at a low-water mark; a request
 * the slice cannot cover waits for it); request by request with one database call
 * (`gw_reserve`, in natural groups) for accounts with a spend cap or token quota, keys with a
 * spend limit, and accounts with little available; other instances' idle slices recalled
 * before a refusal for balance.
 */
export class SharedAdmission {
  private readonly groups: HoldGroups;
  /** The last time this instance asked the others for an account's slices back, and when they have had the time to. */
  private readonly recalling = new Map<string, { at: number; done: Promise<boolean> }>();
  /** Releases of holds of their own on their way to the database, by account. */
  private readonly releasing = new Map<string, Promise<unknown>>();
  /**
   * This instance's open holds of their own, by request id: the latest admission of an id owns
   * its row (`gw_reserve` takes an older one over), so an older run's settlement or release
   * must leave it alone (a batch line run again here while its first run goes on).
   */
  private readonly ownHolds = new Map<string, SharedHold>();

  constructor(private readonly o: SharedAdmissionOptions) {
    this.groups = new HoldGroups(o.repo);
  }

  /** What the account's releases on their way are done with (its balance read waits for them). */
  releasesOf(accountId: string): Promise<unknown> | undefined {
    return this.releasing.get(accountId);
  }

  /** Gives back the holds of admissions this instance answered 503 that the database took anyway, and of releases that failed (see `HoldGroups.giveBackLater`). */
  async releaseAbandoned(): Promise<void> {
    const released = await this.groups.releaseAbandoned();
    if (released > 0) this.o.log.warn('credits: gave back the holds of admissions that failed or releases that did not reach the database', { holds: released });
  }

  /** True when `hold`'s row in the database is still its own (not taken over by a later admission here), and forgets it: it is settled or released now. */
  ownsHold(hold: SharedHold): boolean {
    if (this.ownHolds.get(hold.requestId) !== hold) return false;
    this.ownHolds.delete(hold.requestId);
    return true;
  }

  /** A hold row of its own, admitted: the request id's latest. */
  private heldOwn(input: HoldInput, requestId: string): SharedHold {
    const hold: SharedHold = { requestId, credits: input.credits, tokens: input.tokens, open: true, accountId: input.account.id };
    if (hold.credits !== 0 || hold.tokens !== 0) this.ownHolds.set(requestId, hold);
    return hold;
  }

  /** Recalls older than `EXACT_FOR_MS` are forgotten (the next refusal asks again). */
  forgetOldRecalls(): void {
    const now = Date.now();
    for (const [account, r] of this.recalling) if (r.at <= now - EXACT_FOR_MS) this.recalling.delete(account);
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
    const backlog = this.o.outbox.backlog;
    if (backlog >= (this.o.maxBacklog ?? MAX_OUTBOX_BACKLOG)) {
      throw new GatewayError('service_unavailable', `Billing is unavailable right now (${backlog} settlements wait for the database); retry shortly.`);
    }
    const path = this.pathOf(input.account, input.key, input.credits, input.needsBalance);
    if (path === 'none') return { requestId: input.requestId || newId('req', 16), credits: 0, tokens: 0, open: true };
    if (path !== 'slice' || !this.o.beatsFresh()) return undefined;
    const slice = this.o.leases.get(input.account.id);
    // A suspect slice (heartbeats had stopped: its hold may be gone) admits only after a top-up has set it to what the database holds.
    if (!slice || slice.suspect || !slice.take(input.credits, input.needsBalance)) return undefined;
    // Lease timing is wall time (a test's moved clock moves periods, not how long a slice sat unused).
    const now = Date.now();
    slice.lastUse = now;
    // Low water: a quarter of a slice left, topped up in the background.
    if (!slice.topUp && slice.exactUntil <= now && slice.free < Math.max(slice.want / 2, input.credits * (SLICE_REQUESTS / 4))) void this.o.leases.topUp(slice, input.credits).catch(() => undefined);
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
      let slice = this.o.leases.get(input.account.id);
      if (slice?.closing) await slice.closing;
      slice = this.o.leases.sliceOf(input.account.id);
      if (slice.exactUntil <= Date.now() && this.o.beatsFresh()) {
        try {
          await this.o.leases.topUp(slice, input.credits);
        } catch (error) {
          this.o.log.error('credits: the shared database did not lease a slice', { error: String(error) });
          throw new GatewayError('service_unavailable', 'Billing is unavailable right now (the database did not take the admission); retry shortly.', { retryAfter: 1 });
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
      outcome = await this.groups.send(request);
    } catch (error) {
      this.o.log.error('credits: the shared database did not take an admission', { error: String(error) });
      throw new GatewayError('service_unavailable', 'Billing is unavailable right now (the database did not take the admission); retry shortly.', { retryAfter: 1 });
    }
    if (outcome.outcome !== 'ok') {
      if (outcome.outcome === 'balance') {
        // A slice topped up meanwhile (a background top-up) may still cover it.
        const fromSlice = this.holdFromSlice({ ...input, requestId });
        if (fromSlice) return fromSlice;
        // This instance's slice keeps a part too small for the request: it goes back, and the database is asked once more.
        const slice = this.o.leases.get(input.account.id);
        if (slice && (slice.shrinking || slice.free > 0)) {
          await this.o.leases.shrink(slice);
          const again = await this.groups.send({ ...request, periods: periodKeys(this.o.clock.now()) }).catch(() => outcome);
          if (again.outcome === 'ok') return this.heldOwn(input, requestId);
          outcome = again;
        }
        // Other instances may hold credit idle in their slices.
        if (outcome.outcome === 'balance') {
          const again = await this.afterRecall(request, outcome);
          if (again.outcome === 'ok') return this.heldOwn(input, requestId);
          outcome = again;
        }
      }
      throw refuseHold(outcome, input, now);
    }
    return this.heldOwn(input, requestId);
  }

  /** Gives a hold back without a charge (the request used nothing): to the slice at once, or to the database in the background. */
  release(hold: SharedHold): void {
    if (!hold.open) return;
    if (hold.slice) {
      hold.slice.settle(hold, 0);
      this.o.leases.returnIfDrained(hold.slice);
      return;
    }
    hold.open = false;
    if (!this.ownsHold(hold)) return;
    const released = this.o.repo.release(hold.requestId).catch((error: unknown) => {
      // Not lost: tried again after each heartbeat until the database answers (a live instance's holds are never swept).
      this.groups.giveBackLater(hold.requestId);
      this.o.log.warn('credits: releasing a hold failed; tried again after the next heartbeat', { request_id: hold.requestId, error: String(error) });
    });
    this.o.track(released);
    const accountId = hold.accountId;
    if (!accountId) return;
    // The account's next admission and balance read wait for the releases on their way.
    const all = Promise.all([this.releasing.get(accountId), released]).then(() => {
      if (this.releasing.get(accountId) === all) this.releasing.delete(accountId);
    });
    this.releasing.set(accountId, all);
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
      outcome = await this.groups.send({ ...request, periods: periodKeys(this.o.clock.now()) }).catch(() => outcome);
      if (outcome.outcome !== 'balance') return outcome;
    }
    return outcome;
  }
}
