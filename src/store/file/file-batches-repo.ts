import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import type { FileDb } from './file-db.ts';
import { forget, pageByCreation } from './file-files-repo.ts';
import type { BatchesQuery, BatchesRepo, Page } from '../repositories.ts';
import type { BatchLineRecord, BatchRecord, BatchStatus } from '../types.ts';

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const UNFINISHED: ReadonlySet<BatchStatus> = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

/**
 * Batches on the file backend: records in db.json (`batches`); each batch's per-line
 * progress in `<dataDir>/batches/<id>.jsonl`, one appended line per finished line (handed to
 * the kernel before `saveLine` resolves, so a killed process keeps it). A line cut short by
 * a crash mid-write is skipped when read back (that line simply runs again); the next line
 * written after it starts on a line of its own, so it is not glued to the torn one and lost.
 */
export class FileBatchesRepo implements BatchesRepo {
  readonly dir: string;
  /** Finished lines per batch, loaded from the progress file on first use. */
  private readonly loaded = new Map<string, Promise<Map<number, BatchLineRecord>>>();
  /** Appends in order per batch. */
  private readonly tails = new Map<string, Promise<void>>();
  /** Batches whose progress file may end inside a line (torn when read, or a write that failed part way): the next append starts a new line. */
  private readonly ragged = new Set<string>();

  constructor(
    private readonly db: FileDb,
    dataDir: string,
  ) {
    this.dir = path.join(dataDir, 'batches');
    ensurePrivateDir(this.dir);
  }

  async list(query: BatchesQuery): Promise<Page<BatchRecord>> {
    const statuses = query.status ? new Set(query.status) : undefined;
    const face = query.face;
    const matches = this.db.data.batches.filter(
      (b) => (query.accountId === undefined || b.accountId === query.accountId) && (!statuses || statuses.has(b.status)) && (face === undefined || (b.face === face && !b.deletedAt)),
    );
    return pageByCreation(matches, query.after, query.limit, query.order);
  }

  async get(id: string): Promise<BatchRecord | undefined> {
    return this.db.data.batches.find((b) => b.id === id);
  }

  async create(record: BatchRecord): Promise<BatchRecord> {
    if (!SAFE_ID.test(record.id)) throw new Error(`unsafe batch id '${record.id}'`);
    this.db.data.batches.push(record);
    try {
      await this.db.changed();
    } catch (error) {
      // Not written (a full disk): the caller answers an error, so the batch is not made at all; kept
      // in memory, it would be written with a later change and run, billing a batch its client was refused.
      forget(this.db.data.batches, record.id);
      throw error;
    }
    return record;
  }

  private put(id: string, change: (current: BatchRecord) => BatchRecord | undefined): BatchRecord | undefined {
    const list = this.db.data.batches;
    const at = list.findIndex((b) => b.id === id);
    if (at === -1) return undefined;
    const next = change(list[at]);
    if (next) list[at] = next;
    return next;
  }

  async update(id: string, patch: Partial<Omit<BatchRecord, 'id' | 'accountId'>>): Promise<BatchRecord | undefined> {
    const next = this.put(id, (current) => ({ ...current, ...patch, id, accountId: current.accountId }));
    if (next) await this.db.changed();
    return next;
  }

  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<BatchRecord | undefined> {
    const next = this.put(id, (current) => {
      if (!UNFINISHED.has(current.status)) return undefined;
      if (current.lease && current.lease.owner !== owner && current.lease.expiresAt > now) return undefined;
      return { ...current, lease: { owner, expiresAt: now + leaseMs } };
    });
    if (next) await this.db.changed();
    return next;
  }

  async release(id: string, owner: string): Promise<void> {
    const next = this.put(id, (current) => (current.lease?.owner === owner ? { ...current, lease: null } : undefined));
    if (next) await this.db.changed();
  }

  async claimable(now: number): Promise<BatchRecord[]> {
    return this.db.data.batches.filter((b) => UNFINISHED.has(b.status) && (!b.lease || b.lease.expiresAt <= now)).sort((a, b) => a.created_at - b.created_at);
  }

  private fileOf(batchId: string): string {
    if (!SAFE_ID.test(batchId)) throw new Error(`unsafe batch id '${batchId}'`);
    return path.join(this.dir, `${batchId}.jsonl`);
  }

  private load(batchId: string): Promise<Map<number, BatchLineRecord>> {
    let found = this.loaded.get(batchId);
    if (!found) {
      found = this.readLines(batchId);
      this.loaded.set(batchId, found);
    }
    return found;
  }

  private async readLines(batchId: string): Promise<Map<number, BatchLineRecord>> {
    const lines = new Map<number, BatchLineRecord>();
    let text: string;
    try {
      text = await fs.promises.readFile(this.fileOf(batchId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return lines;
      throw error;
    }
    if (text.length > 0 && !text.endsWith('\n')) this.ragged.add(batchId);
    for (const raw of text.split('\n')) {
      if (!raw) continue;
      try {
        const line = JSON.parse(raw) as BatchLineRecord;
        if (typeof line.index === 'number' && typeof line.result === 'string' && !lines.has(line.index)) lines.set(line.index, line);
      } catch {
        // cut short by a crash: the line runs again
      }
    }
    return lines;
  }

  async saveLine(line: BatchLineRecord): Promise<boolean> {
    const lines = await this.load(line.batchId);
    if (lines.has(line.index)) return false;
    lines.set(line.index, line);
    const text = `${JSON.stringify(line)}\n`;
    const previous = this.tails.get(line.batchId) ?? Promise.resolve();
    const write = previous.then(async () => {
      const lead = this.ragged.has(line.batchId) ? '\n' : '';
      try {
        await fs.promises.appendFile(this.fileOf(line.batchId), lead + text, { mode: FILE_MODE });
      } catch (error) {
        // Part of it may be in the file (a full disk): the next line starts on its own.
        this.ragged.add(line.batchId);
        throw error;
      }
      this.ragged.delete(line.batchId);
    });
    const tail = write.catch(() => undefined);
    this.tails.set(line.batchId, tail);
    try {
      await write;
    } catch (error) {
      lines.delete(line.index);
      throw error;
    } finally {
      if (this.tails.get(line.batchId) === tail) this.tails.delete(line.batchId);
    }
    return true;
  }

  async lines(batchId: string): Promise<BatchLineRecord[]> {
    return [...(await this.load(batchId)).values()].sort((a, b) => a.index - b.index);
  }

  async deleteLines(batchId: string): Promise<void> {
    await this.tails.get(batchId);
    this.loaded.delete(batchId);
    this.ragged.delete(batchId);
    await fs.promises.rm(this.fileOf(batchId), { force: true });
  }

  /** Waits for appends in progress. */
  async flush(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
