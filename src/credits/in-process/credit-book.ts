import type { Store } from '../../store/index.ts';
import type { AccountRecord } from '../../store/index.ts';
import { boundedDelta } from '../../billing/index.ts';
import { roundCredits } from '../../billing/index.ts';
import { balanceError, ceilingError, type SpendCeiling } from '../credit-refusals.ts';

/**
 * An account as billing sees it: the stored record plus `billedSeq`, the last usage-ledger
 * entry already taken from `credits` (the replay checkpoint, persisted in the same record so
 * the store's snapshot is always consistent with it).
 */
export type BilledAccount = AccountRecord & { billedSeq?: number };

/** Credits and tokens held for one in-flight request. */
export interface Reservation {
  readonly accountId: string;
  /** The API key that made the request: its spend limit counts this reservation. */
  readonly keyId?: string;
  /** The request it holds for (its ledger line's id), when known at admission. */
  readonly requestId?: string;
  readonly credits: number;
  readonly tokens: number;
  open: boolean;
}

/**
 * Balances and in-flight reservations. The balance lives in the account record (the store
 * applies updates in call order); reservations live here, in this process. Every check and
 * change is synchronous, so concurrent requests in one process can never overspend.
 */
export class CreditBook {
  private readonly reservedCredits = new Map<string, number>();
  private readonly reservedTokens = new Map<string, number>();
  private readonly reservedByKey = new Map<string, number>();

  constructor(private readonly store: Store) {}

  /** Credits held by in-flight requests of an account. */
  reserved(accountId: string): number {
    return this.reservedCredits.get(accountId) ?? 0;
  }

  /** Credits held by in-flight requests made with one API key. */
  reservedForKey(keyId: string): number {
    return this.reservedByKey.get(keyId) ?? 0;
  }

  /** Tokens (input estimates) held by in-flight requests of an account, for the monthly quota. */
  tokensInFlight(accountId: string): number {
    return this.reservedTokens.get(accountId) ?? 0;
  }

  /** The current balance of an account (the store's record, not a snapshot). */
  balance(accountId: string): number {
    return this.store.cache.account(accountId)?.credits ?? 0;
  }

  /** What requests in flight hold against a ceiling. */
  private heldAgainst(ceiling: SpendCeiling): number {
    return ceiling.scope === 'key' ? this.reservedForKey(ceiling.id) : this.reserved(ceiling.id);
  }

  /** 402 when a ceiling less what is spent and held cannot cover `credits`. */
  private checkCeiling(ceiling: SpendCeiling, credits: number, needsBalance: boolean | undefined): void {
    if (credits <= 0 && !needsBalance) return;
    const reserved = this.heldAgainst(ceiling);
    const available = roundCredits(ceiling.limit - ceiling.spent - reserved);
    if (credits <= available && available > 0) return;
    throw ceilingError(ceiling, credits, reserved);
  }

  /**
   * Holds `credits` and `tokens` for a request, or throws 402 insufficient_balance when a
   * ceiling (the key's spend limit, the account's monthly cap) or the balance, less what
   * others hold, cannot cover them (or, with `needsBalance`, is used up). Ceilings always
   * hold; `enforce: false` skips only the balance.
   */
  reserve(
    accountId: string,
    credits: number,
    tokens: number,
    enforce = true,
    options: { needsBalance?: boolean; keyId?: string; requestId?: string; ceilings?: readonly SpendCeiling[] } = {},
  ): Reservation {
    for (const ceiling of options.ceilings ?? []) this.checkCeiling(ceiling, credits, options.needsBalance);
    if (enforce && (credits > 0 || options.needsBalance)) {
      const balance = this.balance(accountId);
      const reserved = this.reserved(accountId);
      const available = roundCredits(balance - reserved);
      // A priced request whose size is unknown up front (speech, transcription) needs some balance.
      if (credits > available || available <= 0) {
        throw balanceError(credits, balance, reserved);
      }
    }
    this.add(this.reservedCredits, accountId, credits);
    this.add(this.reservedTokens, accountId, tokens);
    if (options.keyId) this.add(this.reservedByKey, options.keyId, credits);
    return { accountId, keyId: options.keyId, requestId: options.requestId, credits, tokens, open: true };
  }

  /**
   * A settled charge on its way to the ledger holds exactly `credits` from now until it is
   * booked (then `release` the returned reservation): other requests settling meanwhile see it,
   * so charges beyond their holds (an upstream that bills more) can never add up past the
   * balance. The reservation given (if any) is closed; its tokens stay held.
   */
  holdCharge(reservation: Reservation | undefined, accountId: string, keyId: string | undefined, credits: number): Reservation {
    const open = reservation?.open === true;
    const held: Reservation = { accountId, keyId: open ? reservation.keyId : keyId, credits, tokens: open ? reservation.tokens : 0, open: true };
    const delta = credits - (open ? reservation.credits : 0);
    if (open) reservation.open = false;
    this.add(this.reservedCredits, accountId, delta);
    if (held.keyId) this.add(this.reservedByKey, held.keyId, delta);
    return held;
  }

  /** Gives a reservation back (idempotent). */
  release(reservation: Reservation): void {
    if (!reservation.open) return;
    reservation.open = false;
    this.add(this.reservedCredits, reservation.accountId, -reservation.credits);
    this.add(this.reservedTokens, reservation.accountId, -reservation.tokens);
    if (reservation.keyId) this.add(this.reservedByKey, reservation.keyId, -reservation.credits);
  }

  /**
   * What a request that cost `cost` may take: all of it, or no more than what each ceiling
   * and (enforcing) the balance still hold after other requests' reservations, so neither a
   * limit is overspent nor the balance goes below zero.
   */
  chargeable(reservation: Reservation, cost: number, enforce = true, ceilings: readonly SpendCeiling[] = []): number {
    if (cost <= 0) return 0;
    const own = reservation.open ? reservation.credits : 0;
    let room = cost;
    for (const ceiling of ceilings) {
      const mine = (ceiling.scope === 'key' ? reservation.keyId === ceiling.id : reservation.accountId === ceiling.id) ? own : 0;
      room = Math.min(room, Math.max(0, ceiling.limit - ceiling.spent - (this.heldAgainst(ceiling) - mine)));
    }
    if (enforce) room = Math.min(room, Math.max(0, this.balance(reservation.accountId) - (this.reserved(reservation.accountId) - own)));
    return roundCredits(room);
  }

  /** Takes `credits` from the balance and moves the checkpoint to ledger entry `seq` (when given). */
  debit(accountId: string, credits: number, seq?: number): void {
    const account = this.store.cache.account(accountId);
    if (!account) return;
    // A charge keeps the balance finite and within ±MAX_BALANCE (billing.enforce: false lets it go negative).
    const delta = boundedDelta(account.credits, -credits);
    // Applied to the cached balance at once; the store writes it in the background (and reports a failed write).
    const accounts = this.store.accounts;
    if (!accounts.adjustCreditsInBackground) {
      void accounts.adjustCredits(accountId, delta, seq === undefined ? {} : { billedSeq: seq }).catch(() => undefined);
      return;
    }
    try {
      accounts.adjustCreditsInBackground(accountId, delta, seq);
    } catch {
      // refused (a non-finite balance), as adjustCredits' rejection was: nothing changed
    }
  }

  private add(map: Map<string, number>, key: string, delta: number): void {
    const next = roundCredits((map.get(key) ?? 0) + delta);
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  }
}
