import { GatewayError } from '../../errors/index.ts';
import type { SettledCharge } from '../../observability/index.ts';
import { readLedgerPage, recordNotWritten, scanLedger, type AccountRecord, type ApiKeyRecord, type LedgerEntry, type LedgerPage, type NewLedgerEntry, type Store, type UsageLedger } from '../../store/index.ts';
import type { UsageIndex } from '../../usage/index.ts';
import type { Clock } from '../../util/index.ts';
import type { Logger } from '../../util/index.ts';
import { nextMonthStart, nextResetAt } from '../spend-period.ts';
import type { CreditHold, CreditsPort, CreditsReading, HoldInput, Settled, SettleInput, UsageSummary } from '../types.ts';
import type { SpendCeiling } from '../credit-refusals.ts';
import type { CreditBook, Reservation } from './credit-book.ts';
import { summarizeLedger } from './summarize-ledger.ts';

const NO_CEILINGS: readonly SpendCeiling[] = Object.freeze([]);

/** A run that charged its request id while another run of it was open; `written`: its ledger line's write, while pending. */
interface BilledRun {
  written?: Promise<void>;
}

export interface InProcessCreditsOptions {
  store: Store;
  book: CreditBook;
  /** The data dir's usage ledger (usage.jsonl), replayed into the store at start-up. */
  ledger: UsageLedger;
  /** The usage aggregates, rebuilt from the ledger at start-up and kept up to date. */
  usage: UsageIndex;
  /** `billing.enforce`: check and cap charges by the balance. */
  enforce: boolean;
  /** Told when the ledger cannot be written (billed requests are refused until the data dir can be). */
  storage: { failed(error: unknown, what: string): void };
  clock: Clock;
  log: Logger;
}

/**
 * The in-process credit engine (the file store: one process owns a data dir). A hold is a
 * reservation in the credit book, checked against the monthly token quota, the key's spend
 * limit, the account's cap and the balance, all synchronously, so concurrent requests in one
 * process never overspend. A settlement appends its line to usage.jsonl and, once it is in the
 * kernel (at once, or with its group), adds it to the usage index, debits the balance and
 * gives the reservation back, in that order.
 */
export class InProcessCredits implements CreditsPort {
  readonly book: CreditBook;
  private readonly usage: UsageIndex;
  /**
   * Admissions open per request id, and the ids one of them settled while another was open (with
   * that run's ledger write while it is pending): a request id is charged once (as the shared
   * engine's ledger keys it), so a batch line run again while its first run goes on is charged by
   * whichever run settles first, and each run's hold stays its own until that run ends.
   */
  private readonly openRuns = new Map<string, number>();
  private readonly billedRuns = new Map<string, BilledRun>();
  /** Runs of a request id waiting for a billed run's line: it is remembered until they are done (one of them may take the charge over). */
  private readonly waitingRuns = new Map<string, number>();

  constructor(private readonly o: InProcessCreditsOptions) {
    this.book = o.book;
    this.usage = o.usage;
  }

  hold(input: HoldInput): Reservation {
    this.checkQuota(input.account, input.tokens);
    const reservation = this.book.reserve(input.account.id, input.credits, input.tokens, this.o.enforce, {
      needsBalance: input.needsBalance,
      keyId: input.key.id,
      requestId: input.requestId,
      ceilings: this.ceilingsFor(input.key, input.account, this.o.clock.now()),
    });
    if (input.requestId) this.openRuns.set(input.requestId, (this.openRuns.get(input.requestId) ?? 0) + 1);
    return reservation;
  }

  release(hold: CreditHold): void {
    const reservation = hold as Reservation;
    if (reservation.open) this.endRun(reservation.requestId, false);
    this.book.release(reservation);
  }

  /** One admission of a request id ends (settled or released); the run that settled it already, if another one did (nothing more is charged). */
  private endRun(requestId: string | undefined, settles: boolean): BilledRun | undefined {
    const open = requestId === undefined ? undefined : this.openRuns.get(requestId);
    if (requestId === undefined || open === undefined) return undefined;
    const billed = this.billedRuns.get(requestId);
    if (open > 1) {
      this.openRuns.set(requestId, open - 1);
      if (settles && !billed) this.billedRuns.set(requestId, {});
    } else {
      this.openRuns.delete(requestId);
      // A line still being written is waited for by the runs that settled after it.
      if (!billed?.written) this.billedRuns.delete(requestId);
    }
    return billed;
  }

  /**
   * Charges the actual usage: as far as the ceilings and (enforcing) the balance allow, held
   * from now until its ledger line is written, then booked (`book`). A line that cannot be
   * written charges nothing and rejects `recorded` with 503.
   */
  settle(input: SettleInput): Settled {
    const reservation = input.hold as Reservation | undefined;
    const requestId = reservation?.open ? reservation.requestId : undefined;
    const billed = this.endRun(requestId, true);
    if (billed) return this.settledBefore(billed, input, reservation!);
    return this.charge(input, reservation, requestId === undefined ? undefined : this.billedRuns.get(requestId));
  }

  /**
   * Another run of this request id settled it: billed once, this run's hold goes back — once
   * that run's line is written. Should its write fail (a full disk: its answer fails with 503),
   * this run's answer is the one sent, and this run is charged.
   */
  private settledBefore(billed: BilledRun, input: SettleInput, reservation: Reservation): Settled {
    const line = input.entry as NewLedgerEntry;
    line.charged_credits = 0;
    const charge: SettledCharge = { cost: line.cost_credits, charged: 0, held: reservation.credits };
    const requestId = reservation.requestId!;
    if (!billed.written) {
      this.book.release(reservation);
      this.forgetBilled(requestId);
      return { charge };
    }
    this.waitingRuns.set(requestId, (this.waitingRuns.get(requestId) ?? 0) + 1);
    const recorded = billed.written.then(
      () => {
        this.waited(requestId);
        this.book.release(reservation);
        this.forgetBilled(requestId);
      },
      () => {
        this.waited(requestId);
        // (The failed run's notRecorded ran first and forgot it; a run that took its place since is waited for in turn,
        // or, its line written at once, remembered until no run of the id waits.)
        const again = this.billedRuns.get(requestId);
        const settled = again ? this.settledBefore(again, input, reservation) : this.charge(input, reservation, this.markBilled(requestId));
        Object.assign(charge, settled.charge);
        return settled.recorded;
      },
    );
    return { charge, recorded };
  }

  /** This run charges a request id other runs of which wait for (they charge nothing once its line is written). */
  private markBilled(requestId: string): BilledRun {
    const billed: BilledRun = {};
    this.billedRuns.set(requestId, billed);
    return billed;
  }

  /** Forgets a billed run once its line is written and no run of its request id is open or waits for it. */
  private billedWritten(requestId: string, billed: BilledRun): void {
    billed.written = undefined;
    if (this.billedRuns.get(requestId) === billed) this.forgetBilled(requestId);
  }

  /** Forgets the billed run of a request id once its line is written and no run of the id is open or waiting. */
  private forgetBilled(requestId: string): void {
    if (this.billedRuns.get(requestId)?.written || this.openRuns.has(requestId) || this.waitingRuns.has(requestId)) return;
    this.billedRuns.delete(requestId);
  }

  private waited(requestId: string): void {
    const waiting = (this.waitingRuns.get(requestId) ?? 1) - 1;
    if (waiting > 0) this.waitingRuns.set(requestId, waiting);
    else this.waitingRuns.delete(requestId);
  }

  private charge(input: SettleInput, reservation: Reservation | undefined, billed: BilledRun | undefined): Settled {
    const { account, key } = input;
    const line = input.entry as NewLedgerEntry;
    const cost = line.cost_credits;
    const ceilings = this.ceilingsFor(key, account, this.o.clock.now());
    const charged = this.book.chargeable(reservation ?? { accountId: account.id, keyId: key.id, credits: 0, tokens: 0, open: false }, cost, this.o.enforce, ceilings);
    const charge: SettledCharge = { cost, charged, held: reservation?.credits ?? 0 };
    line.charged_credits = charged;
    // Until the line is written and the balance debited, the charge holds what it takes.
    const held = this.book.holdCharge(reservation, account.id, key.id, charged);
    let appended;
    try {
      appended = this.o.ledger.appendToGroup(line, input.alone);
    } catch (error) {
      return { charge, recorded: Promise.reject(this.notRecorded(error, line, held, billed)) };
    }
    const { entry, written } = appended;
    if (!written) {
      this.booked(account.id, charged, entry, held);
      if (billed) this.billedWritten(line.request_id, billed);
      return { charge };
    }
    const recorded = written.then(
      () => {
        this.booked(account.id, charged, entry, held);
        if (billed) this.billedWritten(line.request_id, billed);
      },
      (error: unknown) => {
        throw this.notRecorded(error, line, held, billed);
      },
    );
    if (billed) billed.written = recorded;
    return { charge, recorded };
  }

  async read(accountId?: string, options: { balance?: boolean } = {}): Promise<CreditsReading> {
    const reading: CreditsReading = { usage: this.usage, reservedForKey: (keyId) => this.book.reservedForKey(keyId) };
    const account = accountId && options.balance ? this.o.store.cache.account(accountId) : undefined;
    if (account) reading.balance = { credits: account.credits, reserved: this.book.reserved(account.id) };
    return reading;
  }

  requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    return readLedgerPage(this.o.ledger.file, { accountId, ...page });
  }

  async billedRequests(prefix: string): Promise<Set<string>> {
    const found = new Set<string>();
    await scanLedger(this.o.ledger.file, (entry: LedgerEntry) => {
      if (typeof entry.request_id === 'string' && entry.request_id.startsWith(prefix)) found.add(entry.request_id);
    });
    return found;
  }

  summarizeUsage(accounts: readonly AccountRecord[]): Promise<UsageSummary> {
    return summarizeLedger(this.o.ledger.file, accounts);
  }

  async close(): Promise<void> {
    await this.o.ledger.close();
  }

  /** After the ledger line is written: the usage index, the balance, the reservation. */
  private booked(accountId: string, charged: number, entry: LedgerEntry, reservation: Reservation): void {
    this.usage.add(entry);
    this.book.debit(accountId, charged, entry.seq);
    this.book.release(reservation);
  }

  /** 429 quota_exceeded when this month's tokens, those in flight and this request's would pass the account's quota. */
  private checkQuota(account: AccountRecord, inputTokens: number): void {
    const quota = account.monthlyTokenQuota;
    if (quota === null || quota === undefined) return;
    const now = this.o.clock.now();
    const used = this.usage.tokensInMonth(account.id, now);
    const inFlight = this.book.tokensInFlight(account.id);
    if (used + inFlight + inputTokens > quota || used >= quota) {
      throw new GatewayError('quota_exceeded', `The monthly token quota of ${quota} tokens is used up (${used} used this month); it resets at the start of next month (UTC).`, {
        details: { quota, used, in_flight: inFlight, requested: inputTokens, resets_at: nextMonthStart(now) },
      });
    }
  }

  /** The key's spend limit and the account's monthly spend cap, with what each period has spent so far. */
  private ceilingsFor(key: ApiKeyRecord, account: AccountRecord, now: number): readonly SpendCeiling[] {
    const keyLimit = key.limit ?? undefined;
    const spendCap = account.spendCap ?? undefined;
    // Most keys and accounts have neither: no array per hold and per settlement.
    if (keyLimit === undefined && spendCap === undefined) return NO_CEILINGS;
    const out: SpendCeiling[] = [];
    if (keyLimit !== undefined) {
      const reset = key.limitReset ?? null;
      out.push({ scope: 'key', id: key.id, limit: keyLimit, spent: this.usage.keyCreditsIn(key.id, reset, now), reset, resetsAt: nextResetAt(reset, now) });
    }
    if (spendCap !== undefined) {
      out.push({ scope: 'account', id: account.id, limit: spendCap, spent: this.usage.accountCreditsInMonth(account.id, now), reset: 'monthly', resetsAt: nextMonthStart(now) });
    }
    return out;
  }

  /**
   * The ledger line could not be written (a full disk): no charge without its line — the
   * reservation goes back, the balance is untouched, the answer fails with 503 instead of being
   * sent, and billed requests are refused until the data dir can be written again.
   */
  private notRecorded(error: unknown, line: NewLedgerEntry, reservation: Reservation, billed: BilledRun | undefined): GatewayError {
    this.book.release(reservation);
    // Not billed after all: another run of the request (open, or waiting for this line) charges it.
    if (billed && this.billedRuns.get(line.request_id) === billed) this.billedRuns.delete(line.request_id);
    this.o.storage.failed(error, 'the usage ledger');
    this.o.log.error('usage ledger append failed; the request is not charged and its answer fails', { error: String(error), account: line.account_id, request_id: line.request_id });
    return recordNotWritten(error, 'usage ledger line');
  }
}
