import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE } from '../../util/index.ts';
import { readLogLines, type LogLine } from '../../util/index.ts';
import { keepRejectedLines, type RejectedLine } from '../../util/index.ts';
import { syncDir } from './sliced-json-file.ts';
import { writeText } from '../write-text.ts';
import { stringifyRecord } from '../stringify-record.ts';

/** Where a record's current version sits in the log, with what the indexes need of it. */
export interface LogEntry<M> {
  readonly id: string;
  offset: number;
  length: number;
  meta: M;
  /** Set once the record is deleted (secondary indexes may drop such entries lazily). */
  removed?: true;
}

export interface RecordLogOptions<T, M> {
  /** Checks a stored record (zod); throws with a message naming the problem. */
  parse(value: unknown): T;
  /** The small part of a record kept in memory for listing and counting (`previous`: of the version it replaces). */
  meta(record: T, previous?: M): M;
  /** Told synchronously when a record is added or removed (keeps secondary indexes current; a removed entry is marked `removed` first). */
  onAdd?(entry: LogEntry<M>): void;
  onRemove?(entry: LogEntry<M>): void;
  /** How often appended lines are fdatasync'd in the background (default 1000 ms; 0 = never). */
  syncIntervalMs?: number;
  /** Told about a background failure (sync, compaction); the log keeps working. */
  onError?(error: unknown, what: string): void;
}

/** What opening a log found. */
export interface RecordLogReport {
  records: number;
  /** Lines that were not whole JSON (a torn write, garbage): kept aside in `<name>.rejected.jsonl`. */
  rejected: RejectedLine[];
}

/** A stored record that is JSON but not the expected shape: the server must stop and keep the file. */
export class LogShapeError extends Error {}

/** Bytes a line adds around a record's JSON: `{"put":` and `}\n`. */
export const PUT_LINE_OVERHEAD = 9;

/** Lines up to this size are written with one synchronous write(2); longer ones in slices. */
const SYNC_WRITE_MAX = 1 << 20;
const SLICE_CHARS = 1 << 20;
/** Deletions written and applied per turn of the event loop. */
const DELETE_BATCH = 2_000;
/** Compaction starts once dead bytes pass this and outweigh the live ones. */
const COMPACT_MIN_DEAD = 16 << 20;

interface OpenFile {
  handle: fs.promises.FileHandle;
  readers: number;
  retired: boolean;
}

function release(file: OpenFile): void {
  file.readers -= 1;
  if (file.retired && file.readers === 0) void file.handle.close().catch(() => undefined);
}

/**
 * An append-only JSONL collection with an in-memory index (Bitcask-like): every create,
 * update and delete appends one line (`{"put":record}` or `{"del":id}`), so a write costs
 * the size of one record however large the collection grows, and the event loop is never
 * held by the rest. Only ids, file positions and small metadata stay in memory; records
 * are read back from the file (async) when asked for. Mutations run one at a time (a queue);
 * a line is handed to the kernel before its promise resolves. Dead lines (older versions,
 * deletions) are dropped by a compaction that copies live records to a new file in the
 * background, while writes go on, then swaps the files in one short step.
 */
export class RecordLog<T extends { id: string }, M> {
  readonly file: string;
  private readonly index = new Map<string, LogEntry<M>>();
  private current: OpenFile;
  private size: number;
  private liveBytes = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private unsynced = false;
  private syncing = false;
  private compacting: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    file: string,
    handle: fs.promises.FileHandle,
    size: number,
    private readonly options: RecordLogOptions<T, M>,
  ) {
    this.file = file;
    this.current = { handle, readers: 0, retired: false };
    this.size = size;
    const interval = options.syncIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => this.syncInBackground(), interval);
      this.timer.unref();
    }
  }

  /**
   * Opens (or creates, 0600) a log and rebuilds its index. A torn last line is cut off and
   * a line that is not JSON is skipped; both are copied to `<name>.rejected.jsonl` first and
   * reported. A line that is JSON but not a valid record throws LogShapeError (file untouched).
   */
  static async open<T extends { id: string }, M>(file: string, options: RecordLogOptions<T, M>): Promise<{ log: RecordLog<T, M>; report: RecordLogReport }> {
    const entries = new Map<string, { offset: number; length: number; record: T }>();
    const rejected: RejectedLine[] = [];
    const name = path.basename(file);
    const { end, tornAt } = readLogLines(file, (line: LogLine) => {
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        rejected.push({ file: name, line: line.number, offset: line.offset, text: line.text });
        return;
      }
      const op = value as { put?: unknown; del?: unknown };
      if (op && typeof op === 'object' && typeof op.del === 'string') {
        entries.delete(op.del);
        return;
      }
      if (!op || typeof op !== 'object' || op.put === undefined) {
        rejected.push({ file: name, line: line.number, offset: line.offset, text: line.text });
        return;
      }
      let record: T;
      try {
        record = options.parse(op.put);
      } catch (error) {
        throw new LogShapeError(`${file} line ${line.number}: ${(error as Error).message}. The file is left as it is; fix or move it, then start again`);
      }
      // A new version keeps the record's place (creation order); only a delete gives it up.
      entries.set(record.id, { offset: line.offset, length: line.bytes, record });
    });
    if (tornAt !== undefined) {
      const torn = fs.readFileSync(file).subarray(tornAt);
      rejected.push({ file: name, line: -1, offset: tornAt, text: torn.toString('utf8'), torn: true });
    }
    if (rejected.length > 0) keepRejectedLines(file, rejected);
    if (tornAt !== undefined) fs.truncateSync(file, tornAt);
    const handle = await fs.promises.open(file, 'a+', FILE_MODE);
    const log = new RecordLog<T, M>(file, handle, tornAt ?? end, options);
    for (const [id, e] of entries) {
      const entry: LogEntry<M> = { id, offset: e.offset, length: e.length, meta: options.meta(e.record) };
      log.index.set(id, entry);
      log.liveBytes += e.length;
      options.onAdd?.(entry);
    }
    return { log, report: { records: log.index.size, rejected } };
  }

  get count(): number {
    return this.index.size;
  }

  entry(id: string): LogEntry<M> | undefined {
    return this.index.get(id);
  }

  entries(): IterableIterator<LogEntry<M>> {
    return this.index.values();
  }

  /** Reads the current version of a record. */
  async read(entry: LogEntry<M>): Promise<T> {
    const file = this.current;
    const { offset, length } = entry;
    file.readers += 1;
    try {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await file.handle.read(buffer, done, length - done, offset + done);
        if (bytesRead === 0) throw new Error(`${this.file}: record ${entry.id} is cut short at byte ${offset + done}`);
        done += bytesRead;
      }
      return (JSON.parse(buffer.toString('utf8')) as { put: T }).put;
    } finally {
      release(file);
    }
  }

  /** Stores a record (new or a new version); resolves once the line is in the kernel. */
  put(record: T): Promise<LogEntry<M>> {
    return this.enqueue(async () => this.putInTurn(record));
  }

  /** Read-modify-write of one record, in turn with every other mutation; undefined when absent or when `change` returns undefined. */
  update(id: string, change: (current: T) => T | undefined): Promise<T | undefined> {
    return this.enqueue(async () => {
      const entry = this.index.get(id);
      if (!entry) return undefined;
      const next = change(await this.read(entry));
      if (!next) return undefined;
      await this.putInTurn(next);
      return next;
    });
  }

  /** Deletes records, a batch at a time with a turn of the loop between batches; returns how many existed. */
  delete(ids: readonly string[]): Promise<number> {
    return this.enqueue(async () => {
      let removed = 0;
      for (let start = 0; start < ids.length; start += DELETE_BATCH) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        let batch = '';
        const gone = new Set<LogEntry<M>>();
        for (const id of ids.slice(start, start + DELETE_BATCH)) {
          const entry = this.index.get(id);
          if (!entry || gone.has(entry)) continue;
          batch += `{"del":${JSON.stringify(id)}}\n`;
          gone.add(entry);
        }
        if (batch) await this.append(batch);
        removed += this.forget([...gone]);
      }
      this.maybeCompact();
      return removed;
    });
  }

  /** Waits for queued mutations; forces written lines to the disk. */
  async flush(): Promise<void> {
    await this.queue;
    if (this.unsynced) {
      this.unsynced = false;
      await this.current.handle.datasync();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.compacting;
    await this.flush();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.current.retired = true;
    this.current.readers += 1;
    release(this.current);
  }

  private forget(entries: Array<LogEntry<M>>): number {
    for (const entry of entries) {
      this.index.delete(entry.id);
      this.liveBytes -= entry.length;
      entry.removed = true;
      this.options.onRemove?.(entry);
    }
    return entries.length;
  }

  private enqueue<R>(op: () => Promise<R>): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`${this.file} is closed`));
    const run = this.queue.then(op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** `put` inside the queue: the caller holds the turn. */
  private async putInTurn(record: T): Promise<LogEntry<M>> {
    const line = `{"put":${stringifyRecord(record)}}\n`;
    const { offset, length } = await this.append(line);
    const previous = this.index.get(record.id);
    if (previous) {
      this.liveBytes += length - previous.length;
      previous.offset = offset;
      previous.length = length;
      previous.meta = this.options.meta(record, previous.meta);
      this.maybeCompact();
      return previous;
    }
    const entry: LogEntry<M> = { id: record.id, offset, length, meta: this.options.meta(record) };
    this.index.set(record.id, entry);
    this.liveBytes += length;
    this.options.onAdd?.(entry);
    return entry;
  }

  /** Appends text at the end; a failed write is cut back off so no torn line stays behind. */
  private async append(text: string): Promise<{ offset: number; length: number }> {
    const offset = this.size;
    const fd = this.current.handle.fd;
    let length = 0;
    try {
      if (text.length <= SYNC_WRITE_MAX) {
        const buffer = Buffer.from(text);
        writeFully(fd, buffer);
        length = buffer.length;
      } else {
        // In slices, each encoded into one reused buffer (see writeText).
        length = await writeText(this.current.handle, text);
      }
    } catch (error) {
      try {
        fs.ftruncateSync(fd, offset);
      } catch {
        // the next start reports what is left as a rejected line
      }
      throw error;
    }
    this.size = offset + length;
    this.unsynced = true;
    return { offset, length };
  }

  private syncInBackground(): void {
    if (!this.unsynced || this.syncing || this.closed) return;
    this.unsynced = false;
    this.syncing = true;
    this.current.handle
      .datasync()
      .catch((error: unknown) => this.options.onError?.(error, 'fdatasync'))
      .finally(() => {
        this.syncing = false;
      });
  }

  private maybeCompact(): void {
    const dead = this.size - this.liveBytes;
    if (this.compacting || dead < COMPACT_MIN_DEAD || dead < this.liveBytes) return;
    this.compacting = this.compact()
      .catch((error: unknown) => this.options.onError?.(error, 'compaction'))
      .finally(() => {
        this.compacting = undefined;
      });
  }

  /**
   * Copies the live records to a new file while writes go on, then, in turn with the
   * mutations, copies what was appended meanwhile and swaps the files (rename: atomic).
   */
  async compact(): Promise<void> {
    const source = this.current;
    source.readers += 1;
    const temp = `${this.file}.compact-${process.pid}`;
    let out: fs.promises.FileHandle | undefined;
    try {
      const snapshotEnd = this.size;
      const live = [...this.index.values()].map((entry) => ({ entry, offset: entry.offset, length: entry.length }));
      live.sort((a, b) => a.offset - b.offset);
      out = await fs.promises.open(temp, 'w', FILE_MODE);
      const moved = new Map<LogEntry<M>, { from: number; to: number }>();
      let outSize = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const spill = async () => {
        if (pendingBytes === 0) return;
        await out!.write(Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      };
      for (const item of live) {
        const buffer = Buffer.allocUnsafe(item.length);
        const { bytesRead } = await source.handle.read(buffer, 0, item.length, item.offset);
        if (bytesRead !== item.length) throw new Error(`${this.file}: short read at ${item.offset} while compacting`);
        moved.set(item.entry, { from: item.offset, to: outSize });
        pending.push(buffer);
        pendingBytes += buffer.length;
        outSize += buffer.length;
        if (pendingBytes >= SLICE_CHARS) await spill();
      }
      await spill();
      const target = out;
      await this.enqueue(async () => {
        // What was appended since the snapshot goes over as it is (puts and deletes, in order).
        const tailBase = outSize;
        const tailEnd = this.size;
        const chunk = Buffer.allocUnsafe(SLICE_CHARS);
        for (let at = snapshotEnd; at < tailEnd; ) {
          const { bytesRead } = await this.current.handle.read(chunk, 0, Math.min(chunk.length, tailEnd - at), at);
          if (bytesRead === 0) throw new Error(`${this.file}: short read at ${at} while compacting`);
          await target.write(chunk, 0, bytesRead);
          at += bytesRead;
        }
        await target.datasync();
        await target.close();
        out = undefined;
        // Everything that can fail comes before the rename; after it, only in-memory steps.
        const updates: Array<[LogEntry<M>, number]> = [];
        for (const entry of this.index.values()) {
          if (entry.offset >= snapshotEnd) updates.push([entry, tailBase + (entry.offset - snapshotEnd)]);
          else {
            const m = moved.get(entry);
            if (!m || m.from !== entry.offset) throw new Error(`${this.file}: compaction lost track of record ${entry.id}`);
            updates.push([entry, m.to]);
          }
        }
        const handle = await fs.promises.open(temp, 'a+', FILE_MODE);
        try {
          await fs.promises.rename(temp, this.file);
        } catch (error) {
          await handle.close().catch(() => undefined);
          throw error;
        }
        for (const [entry, offset] of updates) entry.offset = offset;
        const old = this.current;
        this.current = { handle, readers: 0, retired: false };
        this.size = tailBase + (tailEnd - snapshotEnd);
        this.unsynced = false;
        old.retired = true;
        old.readers += 1;
        release(old);
        await syncDir(path.dirname(this.file));
      });
    } finally {
      release(source);
      if (out) await out.close().catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
    }
  }
}


/** write(2) until every byte is written (a short write is possible on a full disk). */
function writeFully(fd: number, buffer: Buffer): void {
  let done = 0;
  while (done < buffer.length) done += fs.writeSync(fd, buffer, done, buffer.length - done);
}
