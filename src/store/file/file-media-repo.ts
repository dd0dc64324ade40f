import path from 'node:path';
import { describeIssues, mediaRecordSchema } from '../record-schemas.ts';
import { PUT_LINE_OVERHEAD, RecordLog, type LogEntry, type RecordLogReport } from './record-log.ts';
import type { MediaQuery, MediaRepo } from '../repositories.ts';
import type { MediaRecord, MediaStatus, MediaType } from '../types.ts';

/** What stays in memory per record: enough to filter, sort and count without reading the file. */
interface MediaMeta {
  accountId: string;
  mediaType: MediaType;
  status: MediaStatus;
  createdAt: number;
  /** Insertion order, the tie-break among records of the same second. */
  seq: number;
  /** The record's job still needs work; its lease (kept here so finding work reads no record). */
  job?: { lease: { owner: string; expiresAt: number } | null };
}

type Entry = LogEntry<MediaMeta>;

/** Newest first: created_at descending, then the later-inserted first. */
function newestFirst(a: Entry, b: Entry): number {
  return b.meta.createdAt - a.meta.createdAt || b.meta.seq - a.meta.seq;
}

/**
 * The Media Library in `media.jsonl` (a RecordLog): a create, update or delete appends one
 * line, whatever the size of the library. Per-account lists keep listing and counting an
 * account's records proportional to that account's records.
 */
export class FileMediaRepo implements MediaRepo {
  private readonly byAccount = new Map<string, Entry[]>();
  /** Accounts whose list may still hold removed entries. */
  private readonly stale = new Set<string>();
  private nextSeq = 0;
  private log!: RecordLog<MediaRecord, MediaMeta>;

  private constructor() {}

  static async open(dataDir: string, options: { onError?: (error: unknown, what: string) => void } = {}): Promise<{ repo: FileMediaRepo; report: RecordLogReport }> {
    const repo = new FileMediaRepo();
    const { log, report } = await RecordLog.open<MediaRecord, MediaMeta>(path.join(dataDir, 'media.jsonl'), {
      parse: (value) => {
        const parsed = mediaRecordSchema.safeParse(value);
        if (!parsed.success) throw new Error(describeIssues(parsed.error));
        return parsed.data as MediaRecord;
      },
      meta: (r, previous) => ({
        accountId: r.accountId,
        mediaType: r.media_type,
        status: r.status,
        createdAt: r.created_at,
        seq: previous?.seq ?? repo.nextSeq++,
        ...(r.job?.open ? { job: { lease: r.job.lease } } : {}),
      }),
      onAdd: (entry) => {
        let list = repo.byAccount.get(entry.meta.accountId);
        if (!list) repo.byAccount.set(entry.meta.accountId, (list = []));
        list.push(entry);
      },
      // Deleted entries leave an account's list lazily (see accountEntries): a purge of many is O(n).
      onRemove: (entry) => repo.stale.add(entry.meta.accountId),
      onError: options.onError,
    });
    repo.log = log;
    return { repo, report };
  }

  /** Stores records moved from an older db.json (idempotent: the same id is simply overwritten). */
  async importRecords(records: readonly MediaRecord[]): Promise<void> {
    for (const record of records) await this.log.put(record);
    await this.log.flush();
  }

  async list(query: MediaQuery): Promise<{ data: MediaRecord[]; total: number }> {
    const source: Iterable<Entry> = query.accountId !== undefined ? this.accountEntries(query.accountId) : this.log.entries();
    const matches: Entry[] = [];
    for (const e of source) {
      const m = e.meta;
      if (query.mediaType && m.mediaType !== query.mediaType) continue;
      if (query.status && m.status !== query.status) continue;
      if (query.notBefore !== undefined && m.createdAt < query.notBefore) continue;
      matches.push(e);
    }
    if (query.limit <= 0) return { data: [], total: matches.length };
    // Insertion order is nearly time order: reversed, the sort has little to do.
    matches.reverse().sort(newestFirst);
    const page = matches.slice(query.offset, query.offset + query.limit);
    const data = await Promise.all(page.map((e) => this.log.read(e)));
    return { data, total: matches.length };
  }

  async get(id: string): Promise<MediaRecord | undefined> {
    const entry = this.log.entry(id);
    return entry ? this.log.read(entry) : undefined;
  }

  async create(record: MediaRecord): Promise<MediaRecord> {
    await this.log.put(record);
    return record;
  }

  update(id: string, patch: Partial<Omit<MediaRecord, 'id' | 'accountId'>>): Promise<MediaRecord | undefined> {
    return this.updateWith(id, () => patch);
  }

  async updateWith(id: string, change: (current: MediaRecord) => Partial<Omit<MediaRecord, 'id' | 'accountId'>> | undefined): Promise<MediaRecord | undefined> {
    let seen: MediaRecord | undefined;
    const changed = await this.log.update(id, (current) => {
      seen = current;
      const patch = change(current);
      return patch && { ...current, ...patch, id, accountId: current.accountId };
    });
    return changed ?? seen;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.log.delete([id])) > 0;
  }

  async usage(accountId: string, notBefore?: number): Promise<{ records: number; bytes: number }> {
    let records = 0;
    let bytes = 0;
    for (const e of this.accountEntries(accountId)) {
      if (notBefore !== undefined && e.meta.createdAt < notBefore) continue;
      records += 1;
      bytes += e.length - PUT_LINE_OVERHEAD;
    }
    return { records, bytes };
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    const ids: string[] = [];
    for (const e of this.log.entries()) if (e.meta.createdAt < before) ids.push(e.id);
    return ids.length === 0 ? 0 : this.log.delete(ids);
  }

  claimJob(id: string, owner: string, now: number, leaseMs: number): Promise<MediaRecord | undefined> {
    return this.log.update(id, (current) => {
      const job = current.job;
      if (!job?.open || (job.lease && job.lease.owner !== owner && job.lease.expiresAt > now)) return undefined;
      return { ...current, job: { ...job, lease: { owner, expiresAt: now + leaseMs } } };
    });
  }

  async releaseJob(id: string, owner: string): Promise<void> {
    await this.log.update(id, (current) => (current.job?.lease?.owner === owner ? { ...current, job: { ...current.job, lease: null } } : undefined));
  }

  async claimableJobs(now: number, limit: number, owner?: string): Promise<MediaRecord[]> {
    const free: Entry[] = [];
    for (const e of this.log.entries()) {
      const job = e.meta.job;
      if (job && (!job.lease || job.lease.expiresAt <= now || job.lease.owner === owner)) free.push(e);
    }
    free.sort((a, b) => a.meta.createdAt - b.meta.createdAt || a.meta.seq - b.meta.seq);
    return Promise.all(free.slice(0, limit).map((e) => this.log.read(e)));
  }

  /** An account's live entries, in creation order (removed ones are dropped here, once). */
  private accountEntries(accountId: string): Entry[] {
    const list = this.byAccount.get(accountId);
    if (!list) return [];
    if (!this.stale.delete(accountId)) return list;
    const live = list.filter((e) => !e.removed);
    if (live.length === 0) this.byAccount.delete(accountId);
    else this.byAccount.set(accountId, live);
    return live;
  }

  /** Records in the log (live ones). */
  get count(): number {
    return this.log.count;
  }

  flush(): Promise<void> {
    return this.log.flush();
  }

  close(): Promise<void> {
    return this.log.close();
  }

  /** Compacts now (tests, benchmarks); normally it runs by itself once dead lines outweigh live ones. */
  compact(): Promise<void> {
    return this.log.compact();
  }
}
