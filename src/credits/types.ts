/**
 * The credits port: what the account guards ask of a credit engine. Two implementations,
 * chosen once at start-up by the composition root (src/app): in process (the file store) and
 * shared through the database (a PostgreSQL store). Types only.
 */
import type { SettledCharge } from '../observability/index.ts';
import type { AccountRecord, ApiKeyRecord, LedgerPage, LedgerRecord } from '../store/index.ts';
import type { UsageIndex } from '../usage/index.ts';

/** A request priced at its worst case, as the guards hand it over for a hold. */
export interface HoldInput {
  /** The request id (the ledger line's, once settled); made up when absent. */
  requestId?: string;
  /** The account and the key as they are now (caps, quota and spend limit are read from them). */
  account: AccountRecord;
  key: ApiKeyRecord;
  /** What the request may cost at most (credits). */
  credits: number;
  /** Its input tokens at most, for the monthly token quota. */
  tokens: number;
  /** A priced request of unknown size (speech, transcription) needs some balance even at 0 credits. */
  needsBalance: boolean;
}

/** Credits and tokens a request holds until it settles (what else is in it is the engine's). */
export interface CreditHold {
  readonly credits: number;
  readonly tokens: number;
}

/** A ledger line as the guards price it; the engine decides `charged_credits`. */
export type PricedEntry = Omit<LedgerRecord, 'seq' | 'charged_credits'> & { charged_credits?: number };

/** One settlement, handed over once per admission. */
export interface SettleInput {
  /** What admission held; undefined when nothing was (a request without a price). */
  hold: CreditHold | undefined;
  /** The account and the key as they are now. */
  account: AccountRecord;
  key: ApiKeyRecord;
  /** The priced ledger line; the engine sets `charged_credits` (and the request id when it has none). */
  entry: PricedEntry;
  /** No other admission of this process is in flight: the record is written at once, not with a group. */
  alone: boolean;
  /** The caller waits until the charge is where `billedRequests` reads it (a batch line: a resumed batch asks). */
  untilBilled?: boolean;
}

/** What a settlement did: the charge, and the write its record waits for. */
export interface Settled {
  charge: SettledCharge;
  /** Resolves once the record is written and the balance charged; rejects (503, not charged) when it could not be. Absent: done already. */
  recorded?: Promise<void>;
}

/** What the usage views read of one account (or of all): the aggregates and what requests in flight hold. */
export interface CreditsReading {
  usage: UsageIndex;
  /** The account's balance and what requests in flight hold; undefined when not asked for or unknown. */
  balance?: { credits: number; reserved: number };
  /** Credits held by requests in flight made with one key (its spend limit counts them). */
  reservedForKey(keyId: string): number;
}

/** The operator's usage view of some accounts (`gateway usage`), from the ledger of either engine. */
export interface UsageSummary {
  /** The accounts' usage aggregates, all time (spend, tokens by day and month; the activity view is built from them). */
  usage: UsageIndex;
  /** Settled requests per account id. */
  requests: Map<string, number>;
  /** Credits charged by ledger lines past the account's replay checkpoint (`billedSeq`): not in its stored balance yet. Empty where balances are current. */
  unbilled: Map<string, number>;
}

/** The read side the operator's usage view asks of the credits, answered from the ledger either engine keeps. */
export interface CreditsUsage {
  /** The settled usage of `accounts` (all time): aggregates, requests and what their stored balances do not include yet. */
  summarizeUsage(accounts: readonly AccountRecord[]): Promise<UsageSummary>;
}

/** The credit engine as the guards see it: hold, settle or release, and the read views. */
export interface CreditsPort extends CreditsUsage {
  /**
   * Holds `credits` and `tokens` for a request, or throws what refused it: 402
   * insufficient_balance (balance, key spend limit, account cap), 429 quota_exceeded, 503 when
   * the engine cannot answer. A value when it can answer at once, else a promise.
   */
  hold(input: HoldInput): CreditHold | Promise<CreditHold>;
  /** Gives a hold back without a charge (the request used nothing); once. */
  release(hold: CreditHold): void;
  /** Charges the actual usage, exactly once per request id, and ends the hold. Never throws: a record that cannot be written rejects `recorded`. */
  settle(input: SettleInput): Settled;
  /** The usage aggregates and holds of one account (with its balance when `balance` is asked), or the aggregates of all. */
  read(accountId?: string, options?: { balance?: boolean }): Promise<CreditsReading>;
  /** One account's settled requests, newest first, a page at a time. */
  requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage>;
  /** The request ids in the ledger that start with `prefix` (a resumed batch skips lines already billed). */
  billedRequests(prefix: string): Promise<Set<string>>;
  /** Waits for settlements on their way, writes what is left, releases what it holds. */
  close(): Promise<void>;
}
