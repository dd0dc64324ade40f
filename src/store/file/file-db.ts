import path from 'node:path';
import { Low } from 'lowdb';
import { backupFile } from '../backup-file.ts';
import { DbShapeError, emptyDb, migrate } from '../migrate.ts';
import { SlicedJsonFile } from './sliced-json-file.ts';
import type { DbData, MediaRecord } from '../types.ts';

export interface FileDbOptions {
  /** How long a change waits for company before a background write (default 250 ms). */
  flushDelayMs?: number;
  /** Told about a write that failed (it is retried; nothing pending is dropped). */
  onWriteError?: (error: unknown, attempt: number) => void;
}

/** What opening db.json found, before anything is written. */
export interface OpenedDb {
  db: FileDb;
  /** Media Library records found in a version-1 db.json: they move to the media log. */
  movedMedia: MediaRecord[];
  /** Set when db.json must be written (new, migrated or repaired): the next `flush()` writes it. */
  migration?: { from: number; backup?: string };
}

interface Waiter {
  /** The last change it waits for. */
  generation: number;
  /** Asked for a write at once (`changed(true)`); the others ride along with the next batch. */
  soon: boolean;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const RETRY_MS = [250, 1000, 5000, 15_000, 30_000];

/**
 * db.json through lowdb: the small, hot collections (accounts, keys, sessions, files,
 * batches), held in memory and written whole by a batched background writer. Changes are
 * applied in memory at once; `changed()` returns a promise that resolves when a write that
 * includes the change is in the kernel (fsynced). A write is serialized in slices of a few
 * ms (SlicedJsonFile), so even a large file never holds the event loop. A failed write is
 * reported and retried with backoff; the changes stay pending until one succeeds.
 */
export class FileDb {
  readonly file: string;
  private readonly low: Low<DbData>;
  private readonly adapter: SlicedJsonFile<DbData>;
  private readonly flushDelayMs: number;
  private readonly onWriteError: FileDbOptions['onWriteError'];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** Bumped on every change; a write covers every generation up to the one it started at. */
  private generation = 0;
  private written = 0;
  private failures = 0;
  private waiters: Waiter[] = [];
  /**
   * The waiter changes join until the next write starts: every change before that start is
   * covered by the same write, so they share one promise (a settlement changes a balance on
   * every request; under load hundreds wait for the same batched write).
   */
  private joinable: Waiter | undefined;
  private closed = false;

  private constructor(file: string, options: FileDbOptions) {
    this.file = file;
    this.adapter = new SlicedJsonFile<DbData>(file);
    this.low = new Low<DbData>(this.adapter, emptyDb());
    this.flushDelayMs = options.flushDelayMs ?? 250;
    this.onWriteError = options.onWriteError;
  }

  /**
   * Reads and checks db.json (zod, every record). A file that does not parse, or is not the
   * expected shape, stops here with one line naming the problem; the file is left as it is
   * (and a dated copy kept next to it). Nothing is written yet.
   */
  static async open(dataDir: string, options: FileDbOptions = {}): Promise<OpenedDb> {
    const db = new FileDb(path.join(dataDir, 'db.json'), options);
    let found: { value: unknown } | undefined;
    try {
      found = await db.adapter.readValue();
    } catch (error) {
      throw new Error(`cannot read ${db.file}: ${(error as Error).message.split('\n')[0]} (the file is left as it is)`);
    }
    if (found === undefined) {
      db.low.data = emptyDb();
      db.generation = 1;
      return { db, movedMedia: [], migration: { from: 0 } };
    }
    let result;
    try {
      result = migrate(found.value);
    } catch (error) {
      if (!(error instanceof DbShapeError)) throw error;
      const copy = backupFile(db.file, { reuse: true });
      throw new Error(`${db.file} is not a gateway database: ${error.message}. The file is left as it is (copy: ${path.basename(copy)}); fix or move it, then start again`);
    }
    db.low.data = result.data;
    if (!result.changed) return { db, movedMedia: [] };
    // Before any migration or repair touches the file: a dated copy.
    const backup = path.basename(backupFile(db.file));
    db.generation = 1;
    return { db, movedMedia: result.media, migration: { from: result.from, backup } };
  }

  get data(): DbData {
    return this.low.data;
  }

  /**
   * Records that the data changed (already applied in memory). The promise resolves once a
   * write that includes the change is done; nobody on the request path needs to wait for it.
   * With `soon`, the write starts at once instead of after the batching delay.
   */
  changed(soon = true): Promise<void> {
    this.generation += 1;
    let waiter = this.joinable;
    if (waiter) {
      waiter.generation = this.generation;
      if (soon) waiter.soon = true;
    } else {
      waiter = this.joinable = this.newWaiter(soon);
      this.waiters.push(waiter);
    }
    this.schedule(soon ? 0 : this.flushDelayMs);
    return waiter.done;
  }

  private newWaiter(soon: boolean): Waiter {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Handled here too, so a caller that does not wait never meets an unhandled rejection.
    done.catch(() => undefined);
    return { generation: this.generation, soon, done, resolve, reject };
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer) {
      if (delayMs > 0 || this.failures > 0) return;
      clearTimeout(this.timer);
    }
    if (this.writing) {
      // The write in progress started before this change; the next one is started when it ends.
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeIfChanged();
    }, delayMs);
    // Someone waiting for the write keeps the process alive until it is done.
    if (this.waiters.length === 0) this.timer.unref();
  }

  /** The timer's write: none while one runs or when nothing changed since the last. */
  private async writeIfChanged(): Promise<void> {
    if (this.writing || this.generation === this.written) return;
    await this.runWrite().catch(() => undefined);
  }

  /** One write of the whole file; afterwards, the next is scheduled if changes came meanwhile. */
  private async runWrite(): Promise<void> {
    const target = this.generation;
    // This write covers every change so far: later ones wait for the next.
    this.joinable = undefined;
    const attempt = this.low.write();
    this.writing = attempt;
    try {
      await attempt;
      this.written = Math.max(this.written, target);
      this.failures = 0;
      this.settleWaiters(target);
    } catch (error) {
      this.failures += 1;
      this.onWriteError?.(error, this.failures);
      this.rejectWaiters(target, error);
      throw error;
    } finally {
      this.writing = undefined;
      if (this.generation !== this.written && !this.closed) {
        // Only a change that asked for a write at once skips the batching delay: a balance change
        // (changed(false), every settlement) waits for company, or writes would never stop under load.
        this.schedule(this.failures > 0 ? RETRY_MS[Math.min(this.failures - 1, RETRY_MS.length - 1)] : this.waiters.some((w) => w.soon) ? 0 : this.flushDelayMs);
      }
    }
  }

  private settleWaiters(upTo: number): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) (w.generation <= upTo ? w.resolve() : keep.push(w));
    this.waiters = keep;
  }

  private rejectWaiters(upTo: number, error: unknown): void {
    const keep: Waiter[] = [];
    // The cause goes along: a caller answering a request tells a full disk (503) from a bug.
    const failure = new Error(`could not write ${this.file} (${(error as Error)?.message ?? String(error)}); the change is kept in memory and the write is retried`, { cause: error });
    for (const w of this.waiters) (w.generation <= upTo ? w.reject(failure) : keep.push(w));
    this.waiters = keep;
  }

  /** Writes pending changes now and waits for the write (shutdown, CLI commands); throws if it fails. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.generation === this.written) return;
    await this.runWrite();
  }

  /** Stops the background writer after a last flush. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Re-reads the file (a CLI that holds the lock after another process wrote). */
  async reload(): Promise<void> {
    const found = await this.adapter.readValue();
    this.low.data = found === undefined ? emptyDb() : migrate(found.value).data;
  }
}
