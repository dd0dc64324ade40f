import fs from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { emptyDb, migrate } from './migrate.ts';
import type { DbData } from './types.ts';

/**
 * The embedded record store: one lowdb JSON file, held in memory, written atomically
 * (temp file + rename) by a batched writer. A lowdb write stringifies the whole DB
 * synchronously, so the request path only marks it dirty; at most one write runs per
 * `flushDelayMs`, and `flush()` forces one (shutdown, CLI commands).
 */
export class FileDb {
  readonly file: string;
  private readonly low: Low<DbData>;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;

  private constructor(file: string, private readonly flushDelayMs: number) {
    this.file = file;
    // Built by hand: JSONFilePreset keeps data in memory only under NODE_ENV=test (stack notes).
    this.low = new Low<DbData>(new JSONFile<DbData>(file), emptyDb());
  }

  static async open(dataDir: string, options: { flushDelayMs?: number } = {}): Promise<FileDb> {
    fs.mkdirSync(dataDir, { recursive: true });
    const db = new FileDb(path.join(dataDir, 'db.json'), options.flushDelayMs ?? 250);
    try {
      await db.low.read();
    } catch (error) {
      throw new Error(`cannot read ${db.file}: ${(error as Error).message.split('\n')[0]}`);
    }
    const { data, changed } = migrate(db.low.data);
    db.low.data = data;
    if (changed) await db.low.write();
    return db;
  }

  get data(): DbData {
    return this.low.data;
  }

  /** Schedules a write; many changes within the delay share one write. */
  markDirty(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushDelayMs);
    this.timer.unref();
  }

  /** Writes pending changes now and waits for the write. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = this.low.write().finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  /** Re-reads the file (a CLI that holds the lock after another process wrote). */
  async reload(): Promise<void> {
    await this.low.read();
    this.low.data = migrate(this.low.data).data;
  }
}
