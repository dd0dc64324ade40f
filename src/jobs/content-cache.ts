import fs from 'node:fs/promises';
import path from 'node:path';

/** Variant names are fixed words (`video`, `thumbnail`, …): nothing else reaches a file name. */
const VARIANT = /^[a-z]{1,32}$/;
const RECORD = /^[0-9a-f-]{36}$/;

interface Item {
  bytes: number;
  at: number;
}

/**
 * Job content fetched from providers, kept in `<dataDir>/media-content/<record id>~<variant>`
 * (0600) so a second download costs no provider call. Bounded by `maxBytes` in all: the oldest
 * items go first. Items are removed with their record (delete, 30-day purge). One instance's
 * own cache: with a shared database, another instance fetches from the provider again.
 */
export class ContentCache {
  private readonly dir: string;
  private readonly items = new Map<string, Item>();
  private total = 0;
  private loaded: Promise<void> | undefined;

  constructor(dataDir: string, private readonly maxBytes: number) {
    this.dir = path.join(dataDir, 'media-content');
  }

  private fileOf(recordId: string, variant: string): string | undefined {
    if (!RECORD.test(recordId) || !VARIANT.test(variant)) return undefined;
    return path.join(this.dir, `${recordId}~${variant}`);
  }

  /** Reads what a previous run left (sizes and ages), once. */
  private load(): Promise<void> {
    this.loaded ??= (async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      for (const name of await fs.readdir(this.dir)) {
        const stat = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
        if (!stat?.isFile()) continue;
        this.items.set(name, { bytes: stat.size, at: stat.mtimeMs });
        this.total += stat.size;
      }
    })();
    return this.loaded;
  }

  async get(recordId: string, variant: string): Promise<Buffer | undefined> {
    const file = this.fileOf(recordId, variant);
    if (!file) return undefined;
    await this.load();
    if (!this.items.has(path.basename(file))) return undefined;
    return fs.readFile(file).catch(() => undefined);
  }

  /** Keeps an item when it fits the bound (older items make room); larger ones are served but not kept. */
  async put(recordId: string, variant: string, data: Uint8Array): Promise<void> {
    const file = this.fileOf(recordId, variant);
    if (!file || data.length > this.maxBytes) return;
    await this.load();
    const name = path.basename(file);
    await this.drop(name);
    const oldest = [...this.items.entries()].sort((a, b) => a[1].at - b[1].at);
    while (this.total + data.length > this.maxBytes && oldest.length > 0) await this.drop(oldest.shift()![0]);
    const temp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(temp, data, { mode: 0o600 });
    await fs.rename(temp, file);
    this.items.set(name, { bytes: data.length, at: Date.now() });
    this.total += data.length;
  }

  /** Removes every variant of a record. */
  async remove(recordId: string): Promise<void> {
    if (!RECORD.test(recordId)) return;
    await this.load();
    for (const name of [...this.items.keys()]) if (name.startsWith(`${recordId}~`)) await this.drop(name);
  }

  /** Removes the items of records `alive` says are gone (the 30-day purge, deletes by another instance). */
  async sweep(alive: (recordId: string) => Promise<boolean>): Promise<number> {
    await this.load();
    let removed = 0;
    const ids = new Set([...this.items.keys()].map((name) => name.split('~')[0]));
    for (const id of ids) {
      if (await alive(id)) continue;
      await this.remove(id);
      removed += 1;
    }
    return removed;
  }

  /** Bytes kept now. */
  get size(): number {
    return this.total;
  }

  private async drop(name: string): Promise<void> {
    const item = this.items.get(name);
    if (!item) return;
    this.items.delete(name);
    this.total -= item.bytes;
    await fs.rm(path.join(this.dir, name), { force: true });
  }
}
