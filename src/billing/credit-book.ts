import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/repositories.ts';
import type { AccountRecord } from '../store/types.ts';
import { roundCredits } from './price-usage.ts';

/**
 * An account as billing sees it: the stored record plus `billedSeq`, the last usage-ledger
 * entry already taken from `credits` (the replay checkpoint, persisted in the same record so
 * the store's snapshot is always consistent with it).
 */
export type BilledAccount = AccountRecord & { billedSeq?: number };

/** Credits and tokens held for one in-flight request. */
export interface Reservation {
  readonly accountId: string;
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

  constructor(private readonly store: Store) {}

  /** Credits held by in-flight requests of an account. */
  reserved(accountId: string): number {
    return this.reservedCredits.get(accountId) ?? 0;
  }

  /** Tokens (input estimates) held by in-flight requests of an account, for the monthly quota. */
  tokensInFlight(accountId: string): number {
    return this.reservedTokens.get(accountId) ?? 0;
  }

  /** The current balance of an account (the store's record, not a snapshot). */
  balance(accountId: string): number {
    return this.store.accounts.get(accountId)?.credits ?? 0;
  }

  /**
   * Holds `credits` and `tokens` for a request, or throws 402 insufficient_balance when
   * the balance less what others hold cannot cover them (or, with `needsBalance`, is not
   * positive). `enforce: false` always holds.
   */
  reserve(accountId: string, credits: number, tokens: number, enforce = true, options: { needsBalance?: boolean } = {}): Reservation {
    if (enforce && (credits > 0 || options.needsBalance)) {
      const balance = this.balance(accountId);
      const reserved = this.reserved(accountId);
      const available = roundCredits(balance - reserved);
      // A priced request whose size is unknown up front (speech, transcription) needs some balance.
      if (credits > available || available <= 0) {
        throw new GatewayError('insufficient_balance', `Not enough credit: this request needs up to ${credits} credits, ${Math.max(0, available)} are available.`, {
          details: { required: credits, balance, reserved, available: Math.max(0, available), unit: 'credits' },
        });
      }
    }
    this.add(this.reservedCredits, accountId, credits);
    this.add(this.reservedTokens, accountId, tokens);
    return { accountId, credits, tokens, open: true };
  }

  /** Gives a reservation back (idempotent). */
  release(reservation: Reservation): void {
    if (!reservation.open) return;
    reservation.open = false;
    this.add(this.reservedCredits, reservation.accountId, -reservation.credits);
    this.add(this.reservedTokens, reservation.accountId, -reservation.tokens);
  }

  /**
   * What a request that cost `cost` may take: all of it, or (enforcing) no more than the
   * balance less what other requests hold, so the balance never goes below zero.
   */
  chargeable(reservation: Reservation, cost: number, enforce = true): number {
    if (!enforce || cost <= 0) return Math.max(0, cost);
    const others = this.reserved(reservation.accountId) - (reservation.open ? reservation.credits : 0);
    return roundCredits(Math.min(cost, Math.max(0, this.balance(reservation.accountId) - others)));
  }

  /** Takes `credits` from the balance and moves the checkpoint to ledger entry `seq` (when given). */
  debit(accountId: string, credits: number, seq?: number): void {
    const account = this.store.accounts.get(accountId) as BilledAccount | undefined;
    if (!account) return;
    const patch: Partial<BilledAccount> = { credits: roundCredits(account.credits - credits) };
    if (seq !== undefined && seq > (account.billedSeq ?? 0)) patch.billedSeq = seq;
    void this.store.accounts.update(accountId, patch);
  }

  private add(map: Map<string, number>, key: string, delta: number): void {
    const next = roundCredits((map.get(key) ?? 0) + delta);
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  }
}
