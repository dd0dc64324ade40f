import fs from 'node:fs';
import path from 'node:path';

/** One settled request in the usage ledger (append-only JSONL in the data dir). */
export interface LedgerEntry {
  /** Position in the ledger, 1-based and gapless per data dir; the billing replay checkpoint. */
  seq: number;
  /** Ms epoch of the settlement. */
  ts: number;
  request_id: string;
  account_id: string;
  key_id: string;
  model: string;
  provider: string;
  endpoint: string;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cached_tokens: number;
  /** Price of the usage in credits, after fallback discount and price multiplier. */
  cost_credits: number;
  /** Credits taken from the balance: the cost, or what was left when the balance ran out. */
  charged_credits: number;
  estimated: boolean;
  aborted: boolean;
  /** Fallback discount applied (fraction off), when there was one. */
  discount?: number;
  /** Price multiplier applied (0.5 for batches), when not 1. */
  price_multiplier?: number;
  /** Per-item units of a media call (images, speech characters, audio seconds). */
  media?: { images?: number; speechCharacters?: number; audioSeconds?: number };
}

/** What a caller appends; the ledger assigns `seq`. */
export type NewLedgerEntry = Omit<LedgerEntry, 'seq'>;

const CHUNK = 1 << 20;

/**
 * Reads every whole line of a ledger file, in 1 MB chunks so a large ledger never becomes
 * one string. A line that does not parse (a torn write) is skipped. Returns the bytes read.
 */
export function forEachLedgerEntry(file: string, visit: (entry: LedgerEntry) => void): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return 0;
  }
  const buffer = Buffer.alloc(CHUNK);
  let carry = '';
  let offset = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, CHUNK, offset);
      if (n === 0) break;
      offset += n;
      const lines = (carry + buffer.toString('utf8', 0, n)).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) visitLine(line, visit);
    }
  } finally {
    fs.closeSync(fd);
  }
  return offset;
}

function visitLine(line: string, visit: (entry: LedgerEntry) => void): void {
  if (!line) return;
  let entry: LedgerEntry;
  try {
    entry = JSON.parse(line) as LedgerEntry;
  } catch {
    return; // a torn line from a crash mid-write
  }
  if (entry && typeof entry === 'object' && typeof entry.account_id === 'string') visit(entry);
}

/** Reads every whole ledger entry of a file. */
export function readLedger(file: string): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  forEachLedgerEntry(file, (e) => out.push(e));
  return out;
}

/** Cuts a torn last line (no trailing newline) so the next append starts on a fresh line. */
function repairTail(file: string): void {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return;
  }
  if (size === 0) return;
  const fd = fs.openSync(file, 'r+');
  try {
    const tail = Buffer.alloc(Math.min(size, 64 * 1024));
    let end = size;
    for (;;) {
      const start = Math.max(0, end - tail.length);
      const n = fs.readSync(fd, tail, 0, end - start, start);
      const at = tail.subarray(0, n).lastIndexOf(0x0a);
      if (at !== -1) {
        const keep = start + at + 1;
        if (keep !== size) fs.ftruncateSync(fd, keep);
        return;
      }
      if (start === 0) {
        fs.ftruncateSync(fd, 0);
        return;
      }
      end = start;
    }
  } finally {
    fs.closeSync(fd);
  }
}

export interface OpenLedgerOptions {
  /** File name inside the data dir (default usage.jsonl). */
  name?: string;
  /** Called for each entry already in the file, oldest first (the startup replay). */
  onEntry?: (entry: LedgerEntry) => void;
  /** How often written lines are fdatasync'd in the background (default 1000 ms; 0 = never). */
  syncIntervalMs?: number;
}

/**
 * The append-only usage ledger. `append` is one `write(2)` on an O_APPEND descriptor
 * (a few µs, no wait on the disk): once it returns, the line is in the kernel and survives
 * the process being killed. A background fdatasync every second narrows what a power loss
 * can take. One process owns a data dir, so sequence numbers are assigned here.
 */
export class UsageLedger {
  readonly file: string;
  private fd: number | undefined;
  private seq: number;
  private unsynced = false;
  private syncing = false;
  private readonly timer: NodeJS.Timeout | undefined;

  private constructor(file: string, lastSeq: number, syncIntervalMs: number) {
    this.file = file;
    this.seq = lastSeq;
    this.fd = fs.openSync(file, 'a');
    if (syncIntervalMs > 0) {
      this.timer = setInterval(() => this.syncInBackground(), syncIntervalMs);
      this.timer.unref();
    }
  }

  /** Opens (or creates) the ledger of a data dir: repairs a torn tail, replays entries, appends after them. */
  static open(dataDir: string, options: OpenLedgerOptions = {}): UsageLedger {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, options.name ?? 'usage.jsonl');
    repairTail(file);
    let lastSeq = 0;
    forEachLedgerEntry(file, (entry) => {
      if (typeof entry.seq === 'number' && entry.seq > lastSeq) lastSeq = entry.seq;
      options.onEntry?.(entry);
    });
    return new UsageLedger(file, lastSeq, options.syncIntervalMs ?? 1000);
  }

  /** The sequence number of the last appended entry. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Appends one entry synchronously (to the kernel, not the disk) and returns it with its seq. */
  append(input: NewLedgerEntry): LedgerEntry {
    if (this.fd === undefined) throw new Error('the usage ledger is closed');
    const entry: LedgerEntry = { seq: this.seq + 1, ...input };
    fs.writeSync(this.fd, JSON.stringify(entry) + '\n');
    this.seq = entry.seq;
    this.unsynced = true;
    return entry;
  }

  private syncInBackground(): void {
    if (!this.unsynced || this.syncing || this.fd === undefined) return;
    this.unsynced = false;
    this.syncing = true;
    fs.fdatasync(this.fd, () => {
      this.syncing = false;
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
    this.flush();
    const fd = this.fd;
    this.fd = undefined;
    // A background fdatasync may still hold the descriptor; closing after it is harmless.
    fs.closeSync(fd);
  }
}
