import fs from 'node:fs/promises';
import path from 'node:path';

/** Variant names are fixed words (`video`, `thumbnail`, …): nothing else reaches a file name. */
const VARIANT = /^[a-z]{1,32}$/;
const RECORD = /^[0-9a-f-]{36}$/;

interface Item {
  bytes: number;
  at: number;
}

/** A fetch of one item that downloads share: its own abort, fired when the last of them left. */
interface Flight {
  result: Promise<FetchedContent>;
  controller: AbortController;
  waiting: number;
}

/** What a provider fetch gave: the bytes and their type. */
export interface FetchedContent {
  data: Buffer;
  contentType: string;
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
  /** Fetches under way, by item: a download that comes while one is under way waits for it. */
  private readonly flights = new Map<string, Flight>();

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

  /**
   * The item from the cache, else from `fetch` (which keeps it): one fetch for every download
   * that asks while it is under way, not one each (a video too large to keep is fetched whole
   * once per download, and each of several clients downloading it at once would fetch it whole
   * again). A download that leaves (`signal`) stops waiting; the fetch is stopped only when every
   * download waiting for it left. A cached item comes back with `contentType`.
   */
  read(recordId: string, variant: string, contentType: string, fetch: (signal: AbortSignal) => Promise<FetchedContent>, signal: AbortSignal): Promise<FetchedContent> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const key = `${recordId}~${variant}`;
    let flight = this.flights.get(key);
    // A fetch every download left was stopped: a new download starts its own.
    if (!flight || flight.controller.signal.aborted) {
      const controller = new AbortController();
      const result = this.get(recordId, variant).then((cached) => (cached ? { data: cached, contentType } : fetch(controller.signal)));
      const started: Flight = { result, controller, waiting: 0 };
      flight = started;
      this.flights.set(key, started);
      const land = () => {
        if (this.flights.get(key) === started) this.flights.delete(key);
      };
      result.then(land, land);
    }
    return wait(flight, signal);
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

/** One download's wait for a shared fetch: it ends with the fetch, or when the download leaves (the fetch stopped if it was the last). */
function wait(flight: Flight, signal: AbortSignal): Promise<FetchedContent> {
  flight.waiting += 1;
  return new Promise((resolve, reject) => {
    let waiting = true;
    const leave = () => {
      if (!waiting) return;
      waiting = false;
      signal.removeEventListener('abort', onAbort);
      flight.waiting -= 1;
    };
    const onAbort = () => {
      leave();
      if (flight.waiting === 0) flight.controller.abort(signal.reason);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    flight.result.then(
      (value) => {
        leave();
        resolve(value);
      },
      (error: unknown) => {
        leave();
        reject(error);
      },
    );
  });
}
