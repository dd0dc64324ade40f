import fs from 'node:fs';
import path from 'node:path';

/**
 * The size and owner of every per-id file of a folder (a stored response, a conversation), and
 * the bytes per account (`storage.responsesQuotaBytes`): counted once at start, off the request
 * path, from each file's size and the `accountId` in its first bytes, then kept by every change.
 * A file changed or deleted while the count runs is not counted from what the count read of it.
 */
export class OwnedFileSizes {
  private readonly sizes = new Map<string, { accountId: string; bytes: number }>();
  private readonly perAccount = new Map<string, number>();
  /** Ids changed or deleted while the start-up count runs: what it read of them is stale. */
  private touchedWhileLoading: Set<string> | undefined = new Set();
  private readonly loaded: Promise<void>;
  private stopped = false;

  /** Counts the files `<id><extension>` of `dir`; a failure is told to `onProblem` as `cannot count <what>: …`. */
  constructor(dir: string, extension: string, what: string, onProblem: (message: string) => void) {
    this.loaded = this.load(dir, extension)
      .catch((error: unknown) => onProblem(`cannot count ${what}: ${String(error)}`))
      .finally(() => (this.touchedWhileLoading = undefined));
  }

  /** Bytes of the account's files (known from start-up on). */
  async bytesOf(accountId: string): Promise<number> {
    await this.loaded;
    return this.perAccount.get(accountId) ?? 0;
  }

  /** Ends a start-up count still running (the store closes); resolves once it has let go of the folder. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loaded;
  }

  /** A file written (or rewritten) with `bytes` in all. */
  track(id: string, accountId: string, bytes: number): void {
    this.touchedWhileLoading?.add(id);
    this.count(id, accountId, bytes);
  }

  /** A file deleted: not counted now, nor by a start-up count that read it before. */
  forget(id: string): void {
    this.touchedWhileLoading?.add(id);
    this.uncount(id);
  }

  private async load(dir: string, extension: string): Promise<void> {
    const entries = await fs.promises.opendir(dir);
    const head = Buffer.alloc(512);
    for await (const entry of entries) {
      if (this.stopped) break;
      if (!entry.isFile() || !entry.name.endsWith(extension)) continue;
      const id = entry.name.slice(0, -extension.length);
      if (this.isKnown(id)) continue;
      try {
        const handle = await fs.promises.open(path.join(dir, entry.name), 'r');
        try {
          const { bytesRead } = await handle.read(head, 0, head.length, 0);
          const owner = /"accountId":("(?:[^"\\]|\\.)*")/.exec(head.toString('utf8', 0, bytesRead));
          const size = (await handle.stat()).size;
          if (owner && !this.isKnown(id)) this.count(id, JSON.parse(owner[1]) as string, size);
        } finally {
          await handle.close();
        }
      } catch {
        // deleted meanwhile
      }
    }
  }

  /** Counted already, or changed since the count began (what it read is stale). */
  private isKnown(id: string): boolean {
    return this.sizes.has(id) || this.touchedWhileLoading?.has(id) === true;
  }

  private count(id: string, accountId: string, bytes: number): void {
    this.uncount(id);
    this.sizes.set(id, { accountId, bytes });
    this.perAccount.set(accountId, (this.perAccount.get(accountId) ?? 0) + bytes);
  }

  private uncount(id: string): void {
    const known = this.sizes.get(id);
    if (!known) return;
    this.sizes.delete(id);
    const left = (this.perAccount.get(known.accountId) ?? 0) - known.bytes;
    if (left > 0) this.perAccount.set(known.accountId, left);
    else this.perAccount.delete(known.accountId);
  }
}
