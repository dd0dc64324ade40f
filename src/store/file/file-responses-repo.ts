import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import { describeIssues, storedResponseSchema } from '../record-schemas.ts';
import type { ResponsesRepo } from '../repositories.ts';
import type { StoredResponse, StoredResponseInput } from '../types.ts';
import { writeText } from '../write-text.ts';
import { OwnedFileSizes } from './owned-file-sizes.ts';
import { syncDir } from './sliced-json-file.ts';

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const TEMP = /\.tmp-\d+-\d+$/;

/**
 * Stored Responses, one file per response under `<dataDir>/responses/` (0700, files 0600):
 * a save writes one new file (never rewrites others), a delete removes one, expiry removes
 * old files; nothing needs compacting. The file is written from the JSON texts the route
 * already has, in slices, to a temp name and renamed, so a reader never sees half a file
 * and the event loop is not held by a large body.
 */
export class FileResponsesRepo implements ResponsesRepo {
  readonly dir: string;
  private readonly pending = new Set<Promise<void>>();
  private counter = 0;
  /** Owner and size of every stored response, and bytes per account (`storage.responsesQuotaBytes`). */
  private readonly sizes: OwnedFileSizes;

  constructor(
    dataDir: string,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {
    this.dir = path.join(dataDir, 'responses');
    ensurePrivateDir(this.dir);
    // Temp files of a process that died mid-write: never renamed, never acknowledged.
    for (const name of fs.readdirSync(this.dir)) if (TEMP.test(name)) fs.rmSync(path.join(this.dir, name), { force: true });
    this.sizes = new OwnedFileSizes(this.dir, '.json', 'stored responses', (message) => this.onProblem(message));
  }

  /** Bytes of the account's stored response files (known from start-up on, kept by every save and delete). */
  bytesOf(accountId: string): Promise<number> {
    return this.sizes.bytesOf(accountId);
  }

  save(record: StoredResponseInput): Promise<void> {
    if (!SAFE_ID.test(record.id)) return Promise.reject(new Error(`unsafe stored response id '${record.id}'`));
    const write = this.write(record).finally(() => this.pending.delete(write));
    this.pending.add(write);
    return write;
  }

  private async write(record: StoredResponseInput): Promise<void> {
    const file = this.fileOf(record.id);
    const temp = `${file}.tmp-${process.pid}-${++this.counter}`;
    const handle = await fs.promises.open(temp, 'wx', FILE_MODE);
    try {
      await handle.write(`{"id":${JSON.stringify(record.id)},"accountId":${JSON.stringify(record.accountId)},"createdAt":${Number(record.createdAt)},"request":`);
      await writeText(handle, record.request);
      await handle.write(',"response":');
      await writeText(handle, record.response);
      await handle.write('}\n');
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    let size: number;
    try {
      size = (await handle.stat()).size;
      // The file's mtime is the response's creation time: expiry reads it without opening the file.
      const created = new Date(record.createdAt);
      await fs.promises.utimes(temp, created, created);
      await fs.promises.rename(temp, file);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    this.sizes.track(record.id, record.accountId, size);
    // To the disk after the save resolves (the answer's end waits for the save, never for the disk); flush waits for it.
    const synced = this.syncWritten(record.id, handle).finally(() => this.pending.delete(synced));
    this.pending.add(synced);
  }

  /** A written response's bytes (fdatasync), then its name (the directory), off the request path. */
  private async syncWritten(id: string, handle: fs.promises.FileHandle): Promise<void> {
    try {
      await handle.datasync();
    } catch (error) {
      this.onProblem(`cannot sync stored response ${id} to the disk: ${(error as Error).message}`);
    } finally {
      await handle.close().catch(() => undefined);
    }
    await syncDir(this.dir);
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const record = await this.read(id);
    return record && record.accountId === accountId ? record : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const record = await this.read(id);
    if (!record || record.accountId !== accountId) return false;
    try {
      await fs.promises.rm(this.fileOf(id));
      this.sizes.forget(id);
      return true;
    } catch {
      return false;
    }
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    let removed = 0;
    const dir = await fs.promises.opendir(this.dir);
    for await (const entry of dir) {
      if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
      const file = path.join(this.dir, entry.name);
      try {
        // The mtime was set to the response's creation time when it was stored.
        if ((await fs.promises.stat(file)).mtimeMs < before) {
          await fs.promises.rm(file);
          this.sizes.forget(entry.name.slice(0, -'.json'.length));
          removed += 1;
        }
      } catch {
        // deleted meanwhile
      }
    }
    return removed;
  }

  /**
   * Every stored response as JSON texts, in no particular order (`gateway store migrate`).
   * A file that is there but cannot be read stops the walk with an error naming it.
   */
  async *each(): AsyncGenerator<StoredResponseInput> {
    const dir = await fs.promises.opendir(this.dir);
    for await (const entry of dir) {
      if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
      const id = entry.name.slice(0, -'.json'.length);
      const record = await this.read(id);
      if (!record) throw new Error(`stored response ${id} cannot be read (responses/${entry.name}); fix or remove the file and run again`);
      yield { id, accountId: record.accountId, createdAt: record.createdAt, request: JSON.stringify(record.request), response: JSON.stringify(record.response) };
    }
  }

  /** Waits for saves in progress. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Waits for saves in progress and ends the start-up count of sizes. */
  async close(): Promise<void> {
    await this.flush();
    await this.sizes.stop();
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private async read(id: string): Promise<StoredResponse | undefined> {
    if (!SAFE_ID.test(id)) return undefined;
    let text: string;
    try {
      text = await fs.promises.readFile(this.fileOf(id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.onProblem(`cannot read stored response ${id}: ${(error as Error).message}`);
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.onProblem(`stored response ${id} is not valid JSON (${(error as Error).message}); the file is kept`);
      return undefined;
    }
    const parsed = storedResponseSchema.safeParse(value);
    if (!parsed.success || parsed.data.id !== id) {
      this.onProblem(`stored response ${id} is not a stored response (${parsed.success ? 'id mismatch' : describeIssues(parsed.error)}); the file is kept`);
      return undefined;
    }
    return parsed.data;
  }
}
