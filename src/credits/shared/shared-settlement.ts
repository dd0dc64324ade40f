import { roundCredits } from '../../billing/index.ts';
import type { GatewayError } from '../../errors/index.ts';
import type { SettledCharge } from '../../observability/index.ts';
import { recordNotWritten, type CreditsRepo, type FlushItem, type NewOutboxLine, type OutboxLine, type SettlementOutbox, type SettleRequest } from '../../store/index.ts';
import type { Logger } from '../../util/index.ts';
import { newId } from '../../util/index.ts';
import type { Settled, SettleInput } from '../types.ts';
import { periodKeys } from './period-keys.ts';
import type { SharedHold } from './slice.ts';
import type { SliceLeases } from './slice-leases.ts';

/** A ledger row as the guards build it (the database decides `charged_credits` unless the request came from a slice). */
export type SharedEntry = SettleRequest['entry'];

export interface SharedSettlementOptions {
  repo: CreditsRepo;
  log: Logger;
  /** Where settlements wait for the database (`settlements.jsonl` in the data dir). */
  outbox: SettlementOutbox;
  leases: SliceLeases;
  /** Told when the outbox cannot be written (billed requests are refused until the data dir can be). */
  storage?: { failed(error: unknown, what: string): void };
  /** Counts background work a clean stop waits for. */
  track<T>(promise: Promise<T>): Promise<T>;
  /** A hold of its own still has its row in the database (and forgets it): false once another admission of the same request id took it over. */
  ownsHold(hold: SharedHold): boolean;
}

/**
 * Settlement across instances: a request's line is appended to the local outbox (one
 * write(2)); the answer waits only for that, and the outbox sends groups to the database in the
 * background, exactly once per request id. A line from a slice is charged within the slice here.
 */
export class SharedSettlement {
  constructor(private readonly o: SharedSettlementOptions) {}

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
    let holder: string | undefined;
    if (hold?.slice) {
      charged = hold.slice.chargeable(charged);
      hold.slice.settle(hold, charged);
      lease = hold.slice.leaseId;
      if (hold.slice.draining) queueMicrotask(() => this.o.leases.returnIfDrained(hold.slice!));
    } else if (hold) {
      hold.open = false;
      // Its hold row is this instance's (unless a later admission of the same id took it over).
      if (this.o.ownsHold(hold)) holder = this.o.repo.instance;
    }
    charge.charged = charged;
    // The guards build a fresh entry per settlement: it becomes the line (no copy).
    const line = entry as NewOutboxLine;
    line.charged_credits = charged;
    if (lease) line.lease = lease;
    if (holder) line.holder = holder;
    let written: Promise<void> | undefined;
    try {
      written = this.o.outbox.append(line, options.now).written;
    } catch (error) {
      return Promise.reject(this.notWritten(error, hold?.slice || holder ? hold : undefined, charged, entry.request_id));
    }
    if (written) {
      const slice = hold?.slice;
      // A group that could not be written: its line is withdrawn (not sent, not charged) and the answer fails; resolved when a send had already taken it.
      written = written.catch((error: unknown) => {
        // The outbox already gave the slice's charge back when it skipped the line (shippedLines); a hold of its own goes back here.
        throw this.notWritten(error, slice || !holder ? undefined : hold, 0, entry.request_id);
      });
    }
    if (options.untilRecorded) {
      // Not tracked: a database that stays away must not hold up a clean stop (the line is in the data dir).
      const shipped = this.o.outbox.shipped().catch((error: unknown) => {
        this.o.log.warn('credits: a batch line or media job charge is in the data dir only; sent at the next start', { request_id: entry.request_id, error: String(error) });
      });
      return written ? written.then(() => shipped) : shipped;
    }
    if (!written) return undefined;
    // Handled here (tracked for close); the caller's copy rejects so the answer fails.
    this.o.track(written.catch(() => undefined));
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
      this.o.track(this.o.repo.release(hold.requestId).catch((e: unknown) => this.o.log.warn('credits: releasing a hold failed', { request_id: hold.requestId, error: String(e) })));
    }
    this.o.storage?.failed(error, 'the settlement outbox');
    this.o.log.error('credits: a settlement could not be written to the data dir; the request is not charged and its answer fails', { request_id: requestId, error: String(error) });
    return recordNotWritten(error, 'settlement outbox line');
  }
}

/** An outbox line as the database takes it. */
export function flushItem(line: OutboxLine): FlushItem {
  // The line itself is the entry (its local `seq` and `lease` are not columns the database reads from it).
  return { entry: line, lease: line.lease, holder: line.holder, periods: periodKeys(line.ts) };
}
