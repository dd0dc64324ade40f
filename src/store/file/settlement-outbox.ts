import fs from 'node:fs';
import path from 'node:path';
import type { SettleOutcome, SettleRequest } from '../repositories.ts';
import type { LedgerRecord } from '../types.ts';
import { forEachLedgerEntry, UsageLedger } from './usage-ledger.ts';
import type { Logger } from '../../util/index.ts';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import { syncDir } from './sliced-json-file.ts';

/** A settlement as the outbox keeps it: the ledger line, and the leased slice or the hold it was admitted with (if any). */
export interface OutboxLine extends LedgerRecord {
  /** The lease hold its charge comes out of (`lease:<instance>:<account>`); absent: the request's own hold, or none. */
  lease?: string;
  /** The instance whose hold of its own the line ends (`FlushItem.holder`); absent: none (a slice's line, nothing held, or a line of an older version). */
  holder?: string;
}

export type NewOutboxLine = Omit<OutboxLine, 'seq'>;

export interface SettlementOutboxOptions {
  dataDir: string;
  /** Sends lines to the database (one call, idempotent per request id); outcomes in the same order. */
  ship: (lines: readonly OutboxLine[]) => Promise<SettleOutcome[]>;
  /** Told what each shipped line charged (after its call committed). */
  onShipped?: (lines: readonly OutboxLine[], outcomes: readonly SettleOutcome[]) => void;
  log: Logger;
  /** The longest a line waits for others before its group is shipped (ms, default 20). */
  flushMs?: number;
  /** A group is shipped at once when this many lines wait (default 256); also the most per call. */
  maxLines?: number;
  /** `billing.ledgerSyncMs`: background fdatasync interval of the file. */
  syncIntervalMs?: number;
  /** `billing.ledgerGroupMs`: lines that end within this share one write(2). */
  groupCommitMs?: number;
  /** The file is emptied once every line in it is shipped and it is larger than this (bytes, default 1 MiB). */
  truncateBytes?: number;
}

/** Waits between shipping attempts while the database does not take a group (the last one repeats). */
const RETRY_MS = [50, 250, 1_000, 2_000, 5_000];

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Rejected by a failed attempt (views), or kept until shipped (batch lines). */
  failFast: boolean;
}

/**
 * The settlement outbox of an instance on a shared database (docs/scale-out.md): every
 * settlement is first appended to `<data dir>/settlements.jsonl` — the file store's usage
 * ledger code (`UsageLedger`: one write(2) per group of lines ending together, fdatasync every
 * second) — and the answer's end waits only for that write. A background flusher sends the
 * lines to the database in groups (one call per `flushMs` window or per `maxLines` lines),
 * idempotent per request id, and then moves the "shipped up to" checkpoint
 * (`settlements.shipped`). On start the lines after the checkpoint are sent first. A crash
 * after the reply loses no acknowledged charge as long as the data dir survives.
 */
export class SettlementOutbox {
  readonly file: string;
  private readonly cursorFile: string;
  private readonly ledger: UsageLedger;
  /** Lines appended (or found unshipped at start) and not yet shipped, in order. */
  private pending: OutboxLine[] = [];
  /** Lines before it in `pending` are shipped (compacted now and then: no copy of the rest per group). */
  private head = 0;
  private shippedSeq: number;
  /** The seq of the last line appended (0 for a line whose local write failed: shipped, never a checkpoint). */
  private lastSeq = 0;
  private shipping: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private waiters: Waiter[] = [];
  private failures = 0;
  /** Lines left to send one at a time, after a group whose data the database refused. */
  private isolating = 0;
  private closed = false;
  private readonly flushMs: number;
  private readonly maxLines: number;
  private readonly truncateBytes: number;
  private cursorWriting = false;
  private cursorDirty = false;
  private cursorIdle: (() => void) | undefined;

  constructor(private readonly o: SettlementOutboxOptions) {
    ensurePrivateDir(o.dataDir);
    this.file = path.join(o.dataDir, 'settlements.jsonl');
    this.cursorFile = path.join(o.dataDir, 'settlements.shipped');
    this.flushMs = o.flushMs ?? 20;
    this.maxLines = Math.max(1, o.maxLines ?? 256);
    this.truncateBytes = o.truncateBytes ?? 1 << 20;
    this.shippedSeq = readCursor(this.cursorFile);
    const found: OutboxLine[] = [];
    this.ledger = UsageLedger.open(o.dataDir, {
      name: 'settlements.jsonl',
      syncIntervalMs: o.syncIntervalMs ?? 1000,
      groupCommitMs: o.groupCommitMs ?? 0,
      lastSeqAtLeast: this.shippedSeq,
      onEntry: (entry) => {
        if (entry.seq > this.shippedSeq) found.push(entry as OutboxLine);
      },
    });
    if (this.ledger.report.unreplayable.length > 0) {
      o.log.error(`credits: ${this.ledger.report.unreplayable.length} line(s) of ${this.file} cannot be read; kept aside in ${this.ledger.report.keptIn ?? 'settlements.rejected.jsonl'}`);
    }
    this.lastSeq = this.ledger.lastSeq;
    this.pending = found;
    this.takeLegacy();
  }

  /** Lines not shipped yet (in order; a copy). */
  unshipped(): readonly OutboxLine[] {
    return this.pending.slice(this.head);
  }

  /** How many lines wait for the database. */
  get backlog(): number {
    return this.pending.length - this.head;
  }

  /**
   * Appends a settlement. With `now` (or no group commit) it is in the kernel when this returns
   * (`written` undefined); otherwise `written` resolves once its group is (rejects if the write
   * failed: the line is then not sent, unless a send already took it). Throws, nothing sent, when
   * the line cannot be written at once. The flusher ships it within `flushMs`. `input` becomes
   * the line (numbered in place, as `UsageLedger.appendToGroup` does).
   */
  append(input: NewOutboxLine, now: boolean): { line: OutboxLine; written?: Promise<void> } {
    // Not in the file (a full disk): thrown, and never sent — no charge without its record.
    const appended = this.ledger.appendToGroup(input, now);
    const line = appended.entry as OutboxLine;
    const written = appended.written?.catch((error: unknown) => {
      line.seq = 0;
      // Its group could not be written: not sent either, unless a send already took it (then it is charged, and recorded in the database).
      if (this.withdraw(line)) throw error;
    });
    if (line.seq > 0) this.lastSeq = line.seq;
    this.pending.push(line);
    this.schedule();
    return written ? { line, written } : { line };
  }

  /** Lines whose write failed, taken out of what is sent (they stay in `pending` so counts hold; a send skips them). */
  private readonly withdrawn = new WeakSet<OutboxLine>();
  /** Lines of the send in flight (from `head`). */
  private sending = 0;

  /** Takes a line out of what is sent: false when a send in flight already took it. */
  private withdraw(line: OutboxLine): boolean {
    const at = this.pending.indexOf(line, this.head);
    if (at < 0 || at < this.head + this.sending) return false;
    this.withdrawn.add(line);
    return true;
  }

  /** Ships the waiting lines now; resolves once every line appended before the call is in the database (rejects when a try fails). */
  flush(): Promise<void> {
    return this.waitFor(true);
  }

  /** Resolves once every line appended so far is in the database, however long the database takes. */
  shipped(): Promise<void> {
    return this.waitFor(false);
  }

  private waitFor(failFast: boolean): Promise<void> {
    if (this.backlog === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.backlog, resolve, reject, failFast });
      // Counted from the front of `pending`: re-based as lines are shipped.
      this.kick(0);
    });
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.backlog >= this.maxLines) this.kick(0);
    else if (!this.timer && !this.shipping) this.kick(this.flushMs);
  }

  private kick(ms: number): void {
    if (this.shipping) return;
    if (this.timer) {
      if (ms > 0) return;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (ms === 0) {
      this.shipping = this.shipAll();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.shipping) this.shipping = this.shipAll();
    }, ms);
    this.timer.unref();
  }

  /** Ships groups until nothing waits (or a try fails: then again after a pause). */
  private async shipAll(): Promise<void> {
    try {
      while (this.backlog > 0) {
        const group = this.pending.slice(this.head, this.head + (this.isolating > 0 ? 1 : this.maxLines));
        let outcomes: SettleOutcome[];
        this.sending = group.length;
        try {
          outcomes = await this.shipSome(group);
        } catch (error) {
          if ((error as { refused?: unknown } | null)?.refused !== true) {
            this.failed(error);
            return;
          }
          // The database refused a line's data: the group's lines go one by one, and the one it refuses alone is kept aside.
          if (group.length > 1) {
            this.isolating = group.length;
            continue;
          }
          this.setAside(group[0], error);
          outcomes = [{ inserted: false, charged: 0 }];
        }
        this.sending = 0;
        if (this.isolating > 0) this.isolating -= 1;
        this.failures = 0;
        this.head += group.length;
        if (this.head === this.pending.length || (this.head > 4_096 && this.head * 2 > this.pending.length)) {
          this.pending = this.pending.slice(this.head);
          this.head = 0;
        }
        for (const w of this.waiters) w.seq -= group.length;
        const checkpoint = lastSeqOf(group);
        if (checkpoint > this.shippedSeq) {
          this.shippedSeq = checkpoint;
          this.writeCursor();
        }
        try {
          this.o.onShipped?.(group, outcomes);
        } catch (error) {
          this.o.log.error('credits: accounting for shipped settlements failed', { error: String(error) });
        }
        this.wake();
        // A few lines left over (they arrived during the call): they wait for their own window unless someone waits.
        if (this.backlog < this.maxLines && this.waiters.length === 0 && !this.closed && this.isolating === 0) break;
      }
      this.maybeTruncate();
    } finally {
      this.shipping = undefined;
    }
    if (this.backlog > 0) this.schedule();
  }

  /** Sends a group without its withdrawn lines (those charge nothing). */
  private async shipSome(group: readonly OutboxLine[]): Promise<SettleOutcome[]> {
    if (!group.some((l) => this.withdrawn.has(l))) return this.o.ship(group);
    const sent = group.filter((l) => !this.withdrawn.has(l));
    const outcomes = sent.length > 0 ? await this.o.ship(sent) : [];
    let i = 0;
    return group.map((l) => (this.withdrawn.has(l) ? { inserted: false, charged: 0 } : outcomes[i++]));
  }

  private failed(error: unknown): void {
    this.sending = 0;
    const wait = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    if (this.failures === 0 || this.failures % 10 === 0) {
      this.o.log.error('credits: the database did not take settlements; they wait in the data dir and are sent again', { lines: this.backlog, retry_ms: wait, error: String(error) });
    }
    this.failures += 1;
    const failing = this.waiters.filter((w) => w.failFast);
    this.waiters = this.waiters.filter((w) => !w.failFast);
    for (const w of failing) w.reject(error);
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.shipping) this.shipping = this.shipAll();
    }, wait);
    this.timer.unref();
  }

  /**
   * A line the database refuses as it is (`refused`: sending it again would fail again, and hold
   * up every line after it): kept in `settlements.rejected.jsonl` (0600) with the reason, logged
   * as an error, and not charged; an operator can correct and replay it.
   */
  private setAside(line: OutboxLine, error: unknown): void {
    const file = path.join(this.o.dataDir, 'settlements.rejected.jsonl');
    const fields = { request_id: line.request_id, account: line.account_id, error: String(error) };
    try {
      fs.appendFileSync(file, JSON.stringify({ at: new Date().toISOString(), error: String(error), line }) + '\n', { mode: FILE_MODE });
      this.o.log.error(`credits: the database refused a settlement (${line.request_id}); it is not charged and is kept aside in ${file}`, fields);
    } catch (keepError) {
      this.o.log.error(`credits: the database refused a settlement (${line.request_id}); it is not charged and could not be kept aside, so here it is`, { ...fields, line: JSON.stringify(line), keep_error: String(keepError) });
    }
  }

  private wake(): void {
    const done = this.waiters.filter((w) => w.seq <= 0);
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > 0);
    for (const w of done) w.resolve();
  }

  /**
   * Moves the checkpoint: a whole new file (temp, fdatasync, rename, directory fsync), off the
   * JS thread, one at a time (the latest value wins). A write in place could be torn by a power
   * loss into a number past what was sent (lines skipped); a rename leaves the old number or the
   * new one, and a checkpoint behind or lost only makes the next start send lines again, which
   * charge once.
   */
  private writeCursor(): void {
    if (this.cursorWriting) {
      this.cursorDirty = true;
      return;
    }
    this.cursorWriting = true;
    this.cursorDirty = false;
    writeCheckpoint(this.cursorFile, this.shippedSeq)
      .catch((error: unknown) => this.o.log.warn('credits: the settlement checkpoint could not be written', { error: String(error) }))
      .finally(() => {
        this.cursorWriting = false;
        if (this.cursorDirty) this.writeCursor();
        else this.cursorIdle?.();
      });
  }

  /** Resolves once no checkpoint write is on its way (closing). */
  private cursorWritten(): Promise<void> {
    if (!this.cursorWriting && !this.cursorDirty) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.cursorIdle = () => {
        this.cursorIdle = undefined;
        resolve();
      };
    });
  }

  /**
   * Past `truncateBytes`, the file starts over (numbering goes on): emptied when every line is
   * shipped and the checkpoint says so; under steady load, when lines always arrive while a
   * group is on its way, rewritten with just the lines after the checkpoint and those appended
   * meanwhile (`UsageLedger.rewrite`: at most `maxLines` kept, so it stays small; a backlog after
   * an outage waits until it is sent down to that).
   */
  private maybeTruncate(): void {
    if (this.ledger.bytes < this.truncateBytes) return;
    try {
      if (this.shippedSeq >= this.lastSeq) {
        this.ledger.truncate();
        return;
      }
      if (this.backlog > this.maxLines) return;
      const keep = this.unshipped().filter((l) => l.seq > this.shippedSeq);
      if (keep.length <= this.maxLines) {
        this.ledger.rewrite(keep).catch((error: unknown) => this.o.log.warn('credits: the settlement outbox could not be rewritten', { error: String(error) }));
      }
    } catch (error) {
      this.o.log.warn('credits: the settlement outbox could not be emptied', { error: String(error) });
    }
  }

  /** `settlements.pending.jsonl` of an older version (settlements the database did not take): moved into this outbox. */
  private takeLegacy(): void {
    const legacy = path.join(this.o.dataDir, 'settlements.pending.jsonl');
    let text: string;
    try {
      text = fs.readFileSync(legacy, 'utf8');
    } catch {
      return;
    }
    let moved = 0;
    for (const row of text.split('\n')) {
      if (!row) continue;
      try {
        const request = JSON.parse(row) as SettleRequest;
        this.append({ ...request.entry, charged_credits: request.entry.cost_credits }, true);
        moved += 1;
      } catch (error) {
        this.o.log.error('credits: a kept settlement could not be read or moved; the file is left in place', { file: legacy, error: String(error) });
        return;
      }
    }
    fs.rmSync(legacy, { force: true });
    if (moved > 0) this.o.log.info('credits: settlements kept by an older version are moved into the outbox', { lines: moved });
  }

  /** Ships what waits (one try per `RETRY_MS` step up to `waitMs`), then closes the file; lines left are sent at the next start. */
  async close(waitMs = 5_000): Promise<void> {
    const until = Date.now() + waitMs;
    while (this.backlog > 0 && Date.now() < until) {
      try {
        await this.flush();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.shipping;
    // Nobody waits past the stop: what is left is sent at the next start.
    for (const w of this.waiters.splice(0)) w.reject(new Error('the settlement outbox is closed'));
    if (this.backlog > 0) this.o.log.warn('credits: settlements not sent yet stay in the data dir; they are sent at the next start', { lines: this.backlog });
    await this.cursorWritten();
    await this.ledger.close();
  }
}

/**
 * How many settlements a data dir's outbox holds that never reached the database (after its
 * checkpoint, and an older version's `settlements.pending.jsonl`): a store that does not send
 * them (the file store) must not start over them. Reads only.
 */
export function unsentSettlements(dataDir: string): number {
  const shipped = readCursor(path.join(dataDir, 'settlements.shipped'));
  let n = 0;
  forEachLedgerEntry(path.join(dataDir, 'settlements.jsonl'), (entry) => {
    if (entry.seq > shipped) n += 1;
  });
  try {
    n += fs.readFileSync(path.join(dataDir, 'settlements.pending.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    // none
  }
  return n;
}

/** The checkpoint as `writeCheckpoint` leaves it (`<seq>\n`); anything else (missing, garbage, an older version's zero-padded number written in place, which a power loss could tear into a larger one) is 0: every line in the file is sent again. */
function readCursor(file: string): number {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  return /^[1-9][0-9]{0,15}\n$/.test(text) ? Number(text) : 0;
}

async function writeCheckpoint(file: string, seq: number): Promise<void> {
  const temp = `${file}.tmp`;
  const handle = await fs.promises.open(temp, 'w', FILE_MODE);
  try {
    await handle.writeFile(`${seq}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, file);
  await syncDir(path.dirname(file));
}

function lastSeqOf(lines: readonly OutboxLine[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].seq > 0) return lines[i].seq;
  return 0;
}
