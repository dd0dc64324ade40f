import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import type { FileDb } from './file-db.ts';
import type { FilesQuery, FilesRepo, Page } from '../repositories.ts';
import type { FileRecord } from '../types.ts';

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const TEMP = /\.tmp-\d+-\d+$/;
/** The pieces contentChunks reads. */
const READ_CHUNK_BYTES = 256 * 1024;
/** How many deleted files' ids db.json remembers (FilesRepo.wasDeleted): the oldest go first; ~70 bytes each. */
export const DELETED_FILES_KEPT = 10_000;

/**
 * A page of records kept in creation order: newest first (`desc`: created_at descending, then
 * the later-created first) or oldest first (`asc`), past the `after` record.
 */
export function pageByCreation<T extends { id: string; created_at: number }>(records: readonly T[], after: string | undefined, limit: number, order: 'asc' | 'desc' = 'desc'): Page<T> {
  const newestFirst = records.map((r, i) => ({ r, i })).sort((a, b) => b.r.created_at - a.r.created_at || b.i - a.i).map((x) => x.r);
  const ordered = order === 'desc' ? newestFirst : newestFirst.reverse();
  let start = 0;
  if (after !== undefined) {
    const at = ordered.findIndex((r) => r.id === after);
    if (at === -1) return { data: [], hasMore: false };
    start = at + 1;
  }
  const data = ordered.slice(start, start + Math.max(0, limit));
  return { data, hasMore: start + data.length < ordered.length };
}

/**
 * Files on the file backend: records in db.json (`files`), contents one file each under
 * `<dataDir>/files/` (0700, files 0600), written to a temp name and renamed.
 */
export class FileFilesRepo implements FilesRepo {
  readonly dir: string;
  private counter = 0;

  constructor(
    private readonly db: FileDb,
    dataDir: string,
  ) {
    this.dir = path.join(dataDir, 'files');
    ensurePrivateDir(this.dir);
    for (const name of fs.readdirSync(this.dir)) if (TEMP.test(name)) fs.rmSync(path.join(this.dir, name), { force: true });
  }

  async list(query: FilesQuery): Promise<Page<FileRecord>> {
    const mine = this.db.data.files.filter((f) => f.accountId === query.accountId && (query.purpose === undefined || f.purpose === query.purpose));
    return pageByCreation(mine, query.after, query.limit, query.order);
  }

  async get(accountId: string, id: string): Promise<FileRecord | undefined> {
    return this.db.data.files.find((f) => f.id === id && f.accountId === accountId);
  }

  async create(record: FileRecord, content: Uint8Array): Promise<FileRecord> {
    const temp = `${this.fileOf(record.id)}.tmp-${process.pid}-${++this.counter}`;
    return this.place(record, temp, () => fs.promises.writeFile(temp, content, { mode: FILE_MODE, flag: 'wx' }));
  }

  async createFromFile(record: FileRecord, staged: string): Promise<FileRecord> {
    return this.place(record, staged);
  }

  /**
   * Writes the contents to `temp` (or takes them as they are there) and renames it into place,
   * then adds the record: a record never points at missing contents. Uploads are staged in the
   * data dir, so a rename; a copy only across file systems.
   */
  private async place(record: FileRecord, temp: string, write?: () => Promise<void>): Promise<FileRecord> {
    if (!SAFE_ID.test(record.id)) throw new Error(`unsafe file id '${record.id}'`);
    const file = this.fileOf(record.id);
    try {
      await write?.();
      await fs.promises.rename(temp, file).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV') throw error;
        await fs.promises.copyFile(temp, file, fs.constants.COPYFILE_EXCL);
        await fs.promises.chmod(file, FILE_MODE);
        await fs.promises.rm(temp, { force: true });
      });
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    this.db.data.files.push(record);
    try {
      await this.db.changed();
    } catch (error) {
      // Not written (a full disk): the upload is refused, so no file is made, contents included.
      forget(this.db.data.files, record.id);
      await fs.promises.rm(file, { force: true });
      throw error;
    }
    return record;
  }

  async bytesOf(accountId: string): Promise<number> {
    let total = 0;
    for (const f of this.db.data.files) if (f.accountId === accountId) total += f.bytes;
    return total;
  }

  async content(accountId: string, id: string): Promise<Buffer | undefined> {
    if (!(await this.get(accountId, id))) return undefined;
    try {
      return await fs.promises.readFile(this.fileOf(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async contentChunks(accountId: string, id: string): Promise<AsyncIterable<Buffer> | undefined> {
    if (!(await this.get(accountId, id))) return undefined;
    const file = this.fileOf(id);
    try {
      // Looked for now, so a missing file is undefined here rather than an error mid-read.
      await fs.promises.access(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return readPieces(file);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const list = this.db.data.files;
    const at = list.findIndex((f) => f.id === id && f.accountId === accountId);
    if (at === -1) return false;
    list.splice(at, 1);
    const deleted = (this.db.data.deletedFiles ??= []);
    deleted.push({ accountId, id });
    if (deleted.length > DELETED_FILES_KEPT) deleted.splice(0, deleted.length - DELETED_FILES_KEPT);
    await this.db.changed();
    await fs.promises.rm(this.fileOf(id), { force: true });
    return true;
  }

  async wasDeleted(accountId: string, id: string): Promise<boolean> {
    return this.db.data.deletedFiles?.some((f) => f.id === id && f.accountId === accountId) ?? false;
  }

  async expired(now: number, limit: number): Promise<Array<{ accountId: string; id: string }>> {
    const out: Array<{ accountId: string; id: string }> = [];
    for (const f of this.db.data.files) {
      if (out.length >= limit) break;
      if (f.expires_at !== null && f.expires_at <= now) out.push({ accountId: f.accountId, id: f.id });
    }
    return out;
  }

  private fileOf(id: string): string {
    return path.join(this.dir, id);
  }
}

/** A file's pieces, opened when the first is asked for (an answer never read holds no descriptor) and closed at the end or when the reader stops. */
async function* readPieces(file: string): AsyncGenerator<Buffer> {
  for await (const piece of fs.createReadStream(file, { highWaterMark: READ_CHUNK_BYTES })) yield piece as Buffer;
}

/** Removes the record `id` from `list` (a create that was not written). */
export function forget(list: Array<{ id: string }>, id: string): void {
  const at = list.findIndex((r) => r.id === id);
  if (at !== -1) list.splice(at, 1);
}
