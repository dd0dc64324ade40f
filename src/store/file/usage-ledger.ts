import fs from 'node:fs';
import path from 'node:path';
import { keepRejectedLines } from '../../util/index.ts';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import type { LedgerRecord } from '../types.ts';
import { encodeLedgerLine } from './encode-ledger-line.ts';
import { readLedgerFile, salvageLine, type UnreplayableLine } from './read-ledger-file.ts';

/** One settled request in the usage ledger (append-only JSONL in the data dir); the shape is the store's. */
export type LedgerEntry = LedgerRecord;

/** What a caller appends; the ledger assigns `seq`. */
export type NewLedgerEntry = Omit<LedgerEntry, 'seq'>;

/** Visits every whole, replayable entry of a ledger file (lines that are not are skipped here; `UsageLedger.open` reports them). Returns the bytes read. */
export function forEachLedgerEntry(file: string, visit: (entry: LedgerEntry) => void): number {
  return readLedgerFile(file, path.basename(file), visit).end;
}

/** Reads every whole ledger entry of a file. */
export function readLedger(file: string): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  forEachLedgerEntry(file, (e) => out.push(e));
  return out;
}

export interface OpenLedgerOptions {
  /** File name inside the data dir (default usage.jsonl). */
  name?: string;
  /** Called for each entry already in the file, oldest first (the startup replay). */
  onEntry?: (entry: LedgerEntry) => void;
  /** How often written lines are fdatasync'd in the background (default 1000 ms; 0 = never). */
  syncIntervalMs?: number;
  /** Group commit: the longest a line may wait for others to share its write(2), ms (default 0 = none; at most 2). */
  groupCommitMs?: number;
  /** Sequence numbers go on from at least this (a file emptied by `truncate` keeps its numbering through a checkpoint kept elsewhere). */
  lastSeqAtLeast?: number;
}

/** Lines appended together, written with one write(2). */
interface Group {
  /** The seq of its first line: a failed write gives the numbers back, so seq stays gapless. */
  firstSeq: number;
  lines: string[];
  written: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** What opening a ledger found that it could not replay: kept aside in `usage.rejected.jsonl`. */
export interface LedgerOpenReport {
  unreplayable: UnreplayableLine[];
  /** The side file the lines were copied to (when there were any). */
  keptIn?: string;
}

/**
 * The append-only usage ledger. `append` is one `write(2)` on an O_APPEND descriptor
 * (a few µs, no wait on the disk): once it returns, the line is in the kernel and survives
 * the process being killed. A background fdatasync every second narrows what a power loss
 * can take. One process owns a data dir, so sequence numbers are assigned here.
 *
 * Group commit (`appendToGroup`): under load, lines that arrive within `groupCommitMs` of each
 * other share one write(2) (the kernel's cost per write, not per byte, is what an append
 * costs). A caller that knows no other line is coming writes the group at once.
 */
/** Where a data dir keeps its credit ledger (one JSON line per charge). */
export function ledgerFileOf(dataDir: string): string {
  return path.join(dataDir, 'usage.jsonl');
}

export class UsageLedger {
  readonly file: string;
  /** Lines found at opening that cannot be replayed (torn, garbage), kept aside. */
  readonly report: LedgerOpenReport;
  private fd: number | undefined;
  private seq: number;
  /** Where the next line starts (the file size): a failed append is cut back to it. */
  private size: number;
  private unsynced = false;
  private syncing = false;
  private rewriting = false;
  private readonly timer: NodeJS.Timeout | undefined;
  /** The open group: lines with their seq assigned, not yet written. */
  private group: Group | undefined;
  readonly groupCommitMs: number;

  private constructor(file: string, lastSeq: number, syncIntervalMs: number, report: LedgerOpenReport, groupCommitMs: number) {
    this.file = file;
    this.groupCommitMs = Math.min(2, Math.max(0, groupCommitMs));
    this.seq = lastSeq;
    this.report = report;
    this.fd = fs.openSync(file, 'a', FILE_MODE);
    this.size = fs.fstatSync(this.fd).size;
    if (syncIntervalMs > 0) {
      this.timer = setInterval(() => this.syncInBackground(), syncIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * Opens (or creates, 0600) the ledger of a data dir and replays its entries, oldest first.
   * Lines that cannot be replayed (a torn last line, garbage) are copied to
   * `usage.rejected.jsonl` and reported in `report`, never dropped without a trace; a torn
   * last line is then cut off so the next entry starts on a line of its own.
   */
  static open(dataDir: string, options: OpenLedgerOptions = {}): UsageLedger {
    ensurePrivateDir(dataDir);
    const file = options.name ? path.join(dataDir, options.name) : ledgerFileOf(dataDir);
    recoverRewrite(file);
    let lastSeq = 0;
    const read = readLedgerFile(file, path.basename(file), (entry) => {
      if (typeof entry.seq === 'number' && entry.seq > lastSeq) lastSeq = entry.seq;
      options.onEntry?.(entry);
    });
    const unreplayable = read.unreplayable;
    if (read.tornAt !== undefined) {
      const torn = fs.readFileSync(file).subarray(read.tornAt).toString('utf8');
      const line = { file: path.basename(file), line: -1, offset: read.tornAt, text: torn, torn: true };
      unreplayable.push({ ...line, ...salvageLine(torn) });
    }
    const report: LedgerOpenReport = { unreplayable };
    if (unreplayable.length > 0) report.keptIn = keepRejectedLines(file, unreplayable);
    if (read.tornAt !== undefined) fs.truncateSync(file, read.tornAt);
    return new UsageLedger(file, Math.max(lastSeq, options.lastSeqAtLeast ?? 0), options.syncIntervalMs ?? 1000, report, options.groupCommitMs ?? 0);
  }

  /** The sequence number of the last appended entry. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Appends one entry synchronously (to the kernel, not the disk) and returns it with its seq. */
  append(input: NewLedgerEntry): LedgerEntry {
    return this.appendToGroup(input, true).entry;
  }

  /**
   * Appends one entry (its seq is assigned now). With `now`, or without group commit, the open
   * group and this line are written before it returns (`written` undefined). Otherwise the line
   * joins the open group, written at the latest `groupCommitMs` after the group opened (or when
   * a later caller writes it), and `written` resolves then (rejects if the write failed).
   * `input` becomes the entry (its `seq` set): the caller hands over a record built for this line.
   */
  appendToGroup(input: NewLedgerEntry, now: boolean): { entry: LedgerEntry; written: Promise<void> | undefined } {
    if (this.fd === undefined) throw new Error('the usage ledger is closed');
    // Numbered in place: a copy with seq first cost a generic property copy per settlement, and the line puts seq first anyway.
    const entry = input as LedgerEntry;
    entry.seq = this.seq + 1;
    const line = encodeLedgerLine(entry);
    this.seq = entry.seq;
    if (now || this.groupCommitMs === 0) {
      const group = this.group;
      if (!group) {
        try {
          this.writeLines(line);
        } catch (error) {
          this.seq = entry.seq - 1;
          throw error;
        }
        return { entry, written: undefined };
      }
      group.lines.push(line);
      this.writeGroup();
      return { entry, written: undefined };
    }
    const group = (this.group ??= this.openGroup(entry.seq));
    group.lines.push(line);
    return { entry, written: group.written };
  }

  /** Writes the open group now, if there is one (shutdown, tests). */
  writeGroup(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    clearTimeout(group.timer);
    try {
      this.writeLines(group.lines.join(''));
    } catch (error) {
      this.seq = group.firstSeq - 1;
      group.reject(error);
      throw error;
    }
    group.resolve();
  }

  private openGroup(firstSeq: number): Group {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const written = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Whoever waits handles a failure; nobody waiting must not make it unhandled.
    written.catch(() => undefined);
    const timer = setTimeout(() => {
      try {
        this.writeGroup();
      } catch {
        // rejected to the group's waiters
      }
    }, this.groupCommitMs);
    return { firstSeq, lines: [], written, resolve, reject, timer };
  }

  /** One write(2) in practice; a short write (a full disk) is continued, never left torn; a failure is cut back. */
  private writeLines(text: string): void {
    const bytes = Buffer.from(text);
    const fd = this.fd!;
    try {
      for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      try {
        fs.ftruncateSync(fd, this.size);
      } catch {
        // the next start reports what is left as an unreplayable line
      }
      throw error;
    }
    this.size += bytes.length;
    this.unsynced = true;
  }

  private syncInBackground(): void {
    if (!this.unsynced || this.syncing || this.fd === undefined) return;
    this.unsynced = false;
    this.syncing = true;
    fs.fdatasync(this.fd, () => {
      this.syncing = false;
    });
  }

  /** The bytes written so far. */
  get bytes(): number {
    return this.size;
  }

  /**
   * Empties the file (every line in it is kept elsewhere: a settlement outbox whose lines are
   * all shipped); numbering goes on. False, and nothing done, while a group waits to be written.
   */
  truncate(): boolean {
    if (this.fd === undefined || this.group || this.rewriting) return false;
    fs.ftruncateSync(this.fd, 0);
    this.size = 0;
    return true;
  }

  /**
   * Replaces the file with `keep` (entries already written to it, in order: a settlement
   * outbox's lines not sent yet) followed by whatever is appended meanwhile, without a moment
   * where a line is in neither file: `keep` goes to a side file, which is forced to the disk in
   * the background (no wait on the event loop); then, in one synchronous step, the lines the old
   * file got since are copied after it, it is renamed over the ledger, and appends go to it;
   * numbering goes on. Resolves false, with nothing done, while a group waits to be written or
   * another rewrite runs, or when the ledger closed meanwhile.
   */
  rewrite(keep: readonly LedgerEntry[]): Promise<boolean> {
    if (this.fd === undefined || this.group || this.rewriting) return Promise.resolve(false);
    const from = this.size;
    const head = Buffer.from(keep.map(encodeLedgerLine).join(''));
    const tmp = `${this.file}.rewrite`;
    // Opened for appending: once renamed it is the ledger's descriptor (no open that could fail after the rename).
    const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
    const tfd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, FILE_MODE);
    let renamed = false;
    const discard = (error?: unknown) => {
      if (!renamed) {
        fs.closeSync(tfd);
        fs.rmSync(tmp, { force: true });
      }
      if (error) throw error;
      return false;
    };
    try {
      writeAll(tfd, head);
    } catch (error) {
      return Promise.reject(discard(error));
    }
    this.rewriting = true;
    return new Promise<void>((resolve, reject) => fs.fdatasync(tfd, (error) => (error ? reject(error) : resolve())))
      .then(() => {
        if (this.fd === undefined) return discard();
        // An open group is written now (early, not late), so its lines are in the copied tail.
        this.writeGroup();
        const tail = Buffer.alloc(this.size - from);
        if (tail.length > 0) {
          // The ledger's descriptor only appends: the tail is read through a descriptor of its own (still the old file).
          const rfd = fs.openSync(this.file, 'r');
          try {
            for (let done = 0; done < tail.length; ) {
              const n = fs.readSync(rfd, tail, done, tail.length - done, from + done);
              if (n === 0) throw new Error(`${this.file} is shorter than its ledger wrote`);
              done += n;
            }
          } finally {
            fs.closeSync(rfd);
          }
        }
        writeAll(tfd, tail);
        fs.renameSync(tmp, this.file);
        renamed = true;
        const old = this.fd;
        this.fd = tfd;
        this.size = head.length + tail.length;
        this.unsynced = tail.length > 0;
        // A background fdatasync may still hold the old descriptor; closing after it is harmless.
        fs.closeSync(old);
        // The rename reaches the disk with the directory, forced in the background (milliseconds):
        // a power loss before that may undo it; lines appended meanwhile are then in the side file
        // only, which the next opening puts in place (recoverRewrite).
        syncDirInBackground(path.dirname(this.file));
        return true;
      })
      .catch((error: unknown) => discard(error))
      .finally(() => {
        this.rewriting = false;
      });
  }

  /** Forces written lines to the disk. */
  flush(): void {
    if (this.fd !== undefined && this.unsynced) {
      fs.fdatasyncSync(this.fd);
      this.unsynced = false;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.fd === undefined) return;
    try {
      this.writeGroup();
    } catch {
      // rejected to the group's waiters, who log it
    }
    this.flush();
    const fd = this.fd;
    this.fd = undefined;
    // A background fdatasync may still hold the descriptor; closing after it is harmless.
    fs.closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** The last sequence number in a ledger file (0 when it has none or is missing). */
function lastSeqOf(file: string): number {
  if (!fs.existsSync(file)) return 0;
  let last = 0;
  forEachLedgerEntry(file, (entry) => {
    if (typeof entry.seq === 'number' && entry.seq > last) last = entry.seq;
  });
  return last;
}

/**
 * A rewrite's side file found at opening. Numbered past the ledger's last line, it is a finished
 * rewrite whose rename a power loss undid (before the directory reached the disk), holding the
 * lines appended after it: it becomes the ledger now. Otherwise it is a rewrite that never
 * finished (every line of it is in the ledger too) and is removed, as the next rewrite would.
 */
function recoverRewrite(file: string): void {
  const side = `${file}.rewrite`;
  if (!fs.existsSync(side)) return;
  if (lastSeqOf(side) > lastSeqOf(file)) {
    // Undone again by a power loss before the directory is on the disk, the same side file is found and put in place next time.
    fs.renameSync(side, file);
    syncDirInBackground(path.dirname(file));
  } else fs.rmSync(side, { force: true });
}

function syncDirInBackground(dir: string): void {
  fs.open(dir, 'r', (error, fd) => {
    if (error) return;
    fs.fsync(fd, () => fs.close(fd, () => undefined));
  });
}
