import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive, securePrivateTree } from '../../util/index.ts';
import { EmailTakenError } from '../email-taken.ts';
import { FileBatchesRepo } from './file-batches-repo.ts';
import { FileDb } from './file-db.ts';
import { FileFilesRepo } from './file-files-repo.ts';
import { FileUploadsRepo } from './file-uploads-repo.ts';
import { FileMediaRepo } from './file-media-repo.ts';
import { FileResponsesRepo } from './file-responses-repo.ts';
import { FileConversationsRepo } from './file-conversations-repo.ts';
import type { RecordLogReport } from './record-log.ts';
import type { AccountsRepo, KeysRepo, SessionsRepo, Store, StoreCache } from '../repositories.ts';
import type { AccountRecord, ApiKeyRecord, SessionRecord } from '../types.ts';

export interface FileStoreOptions {
  /** Batching delay of db.json writes nobody waits for (default 250 ms). */
  flushDelayMs?: number;
  /** Where problems that do not stop the store go (failed writes, paths that could not be tightened). */
  warn?: (message: string, fields?: Record<string, unknown>) => void;
}

/** What opening a data dir found and did, for the start-up log. */
export interface FileStoreReport {
  /** db.json was migrated from this version (a dated backup was kept first). */
  migratedFrom?: number;
  backup?: string;
  /** Media Library lines that could not be read, kept aside in media.rejected.jsonl. */
  media: RecordLogReport;
  /** Paths whose modes could not be tightened to 0600/0700. */
  insecure: string[];
}

/** The folders a data dir holds (stored responses, temporary images, uploaded files, job content). */
const DATA_DIRS = new Set(['responses', 'conversations', 'temp-images', 'files', 'batches', 'media-content']);
/** The gateway's files at the top of a data dir: records, logs, their backups, side and temp files. */
const DATA_FILE = /^(?:db\.json|usage(?:\.rejected)?\.jsonl|media(?:\.rejected)?\.jsonl|server\.json|gateway\.lock|instance-id|webhook-secret)(?:$|\.)/;

/** Whether a top-level entry of a data dir is the gateway's own (its mode is tightened at start). */
function isDataDirEntry(name: string, isDirectory: boolean): boolean {
  return isDirectory ? DATA_DIRS.has(name) : DATA_FILE.test(name);
}

/** db.json's write in progress and media.jsonl's compaction, named by the pid of the process writing them. */
const SIDE_FILE = /^(?:db\.json\.tmp|media\.jsonl\.compact)-(\d+)$/;

/**
 * Removes the side files of processes that are gone: a process killed while writing db.json
 * (or compacting the media log) leaves a copy of up to the whole file, and one more at every
 * such crash. A live process's (a store opened elsewhere, in the middle of its write) are left.
 */
function removeDeadSideFiles(dataDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dataDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(SIDE_FILE.exec(name)?.[1]);
    if (pid && (pid === process.pid || !isProcessAlive(pid))) fs.rmSync(path.join(dataDir, name), { force: true });
  }
}

/** Keeps credits to a millionth (what billing rounds to). */
function addCredits(balance: number, delta: number): number {
  return Math.round((balance + delta) * 1e6) / 1e6;
}

/** `value`, when finite; the message names the account (built only then: this runs on every settlement). */
function finiteCredits(value: number, accountId: string): number {
  if (!Number.isFinite(value)) throw new RangeError(`account ${accountId}: credits must be a finite number, got ${value}`);
  return value;
}

/** An account record (a copy: records are replaced, never changed in place) with `delta` added and the ledger checkpoint moved forward to `billedSeq`. */
function withCredits(current: AccountRecord, delta: number, billedSeq: number | undefined): AccountRecord {
  const credits = finiteCredits(addCredits(current.credits, delta), current.id);
  const next = { ...current };
  // Set on the fresh copy, not written into the literal after the spread: V8 (Node 20) defines such a
  // field through a runtime miss every time (~3k instructions a settlement); a store to the copy's own field is cached.
  next.credits = credits;
  if (billedSeq !== undefined && billedSeq > (current.billedSeq ?? 0)) next.billedSeq = billedSeq;
  return next;
}

/** A create's failed write, saying the record was not made (not "kept in memory and retried"), its cause kept. */
function notCreated(error: unknown, what: string): Error {
  const said = error instanceof Error ? error.message.replace(/; the change is kept in memory and the write is retried$/, '') : String(error);
  return new Error(`${said}; the ${what} was not created`, { cause: error });
}

/** Removes the record with `record`'s id from `list` (a change since may have replaced it): a create whose write failed. */
function removeRecord<T extends { id: string }>(list: T[], record: T): void {
  const at = list.findIndex((r) => r.id === record.id);
  if (at !== -1) list.splice(at, 1);
}

/**
 * The embedded store: db.json (lowdb) for the small, hot collections, held in memory and
 * indexed for the request path; media.jsonl (an append-only log) for the Media Library;
 * one file per stored Response. See docs/store.md.
 */
export class FileStore implements Store {
  readonly cache: StoreCache;
  readonly accounts: AccountsRepo;
  readonly keys: KeysRepo;
  readonly sessions: SessionsRepo;
  readonly report: FileStoreReport;
  readonly files: FileFilesRepo;
  readonly uploads: FileUploadsRepo;
  readonly batches: FileBatchesRepo;
  private readonly keyByHash = new Map<string, ApiKeyRecord>();
  private readonly accountById = new Map<string, AccountRecord>();
  /** Position of each account in the stored list: every settlement updates one, so no scan. */
  private readonly accountSlot = new Map<string, number>();
  private readonly sessionByHash = new Map<string, SessionRecord>();
  /** Position of each key in the stored list (a key's last use is noted once a second). */
  private readonly keySlot = new Map<string, number>();

  private constructor(
    readonly db: FileDb,
    readonly media: FileMediaRepo,
    readonly responses: FileResponsesRepo,
    readonly conversations: FileConversationsRepo,
    report: FileStoreReport,
    dataDir: string,
  ) {
    this.report = report;
    this.files = new FileFilesRepo(db, dataDir);
    this.uploads = new FileUploadsRepo(this.files);
    this.batches = new FileBatchesRepo(db, dataDir);
    this.reindex();
    const data = () => db.data;
    this.cache = {
      account: (id) => this.accountById.get(id),
      keyByHash: (hash) => this.keyByHash.get(hash),
      sessionByHash: (hash) => this.sessionByHash.get(hash),
    };

    const putAccount = (id: string, change: (current: AccountRecord) => AccountRecord): AccountRecord | undefined => {
      const list = data().accounts;
      let slot = this.accountSlot.get(id);
      if (slot === undefined || list[slot]?.id !== id) {
        slot = list.findIndex((a) => a.id === id);
        if (slot === -1) return undefined;
        this.accountSlot.set(id, slot);
      }
      // Records are replaced, never changed in place: a write in progress holds the old one.
      const next = change(list[slot]);
      list[slot] = next;
      this.accountById.set(id, next);
      return next;
    };

    const putKey = (id: string, change: (current: ApiKeyRecord) => ApiKeyRecord): ApiKeyRecord | undefined => {
      const list = data().apiKeys;
      let slot = this.keySlot.get(id);
      if (slot === undefined || list[slot]?.id !== id) {
        slot = list.findIndex((k) => k.id === id);
        if (slot === -1) return undefined;
        this.keySlot.set(id, slot);
      }
      const next = change(list[slot]);
      list[slot] = next;
      this.keyByHash.set(next.hash, next);
      return next;
    };

    /**
     * Writes a record just added to `list()`; when the write fails (a full disk) the create is undone
     * (`forget` drops it from the indexes) and says it was not made: its creator is told so.
     */
    const writeCreated = async <T extends { id: string }>(list: () => T[], record: T, what: string, forget: () => void): Promise<void> => {
      try {
        await db.changed();
      } catch (error) {
        removeRecord(list(), record);
        forget();
        void db.changed();
        throw notCreated(error, what);
      }
    };

    /** The account with this email, ignoring case (one at most: create refuses a second). */
    const byEmail = (email: string) => {
      const wanted = email.toLowerCase();
      return data().accounts.find((a) => a.email.toLowerCase() === wanted);
    };
    this.accounts = {
      list: async () => [...data().accounts],
      get: async (id) => this.accountById.get(id),
      findByEmail: async (email) => byEmail(email),
      create: async (record) => {
        finiteCredits(record.credits, record.id);
        // Checked and pushed in one synchronous step: two creates in flight cannot both pass.
        if (byEmail(record.email)) throw new EmailTakenError(record.email);
        data().accounts.push(record);
        this.accountById.set(record.id, record);
        this.accountSlot.set(record.id, data().accounts.length - 1);
        // Kept in memory after a failed write, it would be written with a later change: an account
        // its creator was told failed, whose email the retried create finds taken.
        await writeCreated(() => data().accounts, record, 'account', () => {
          this.accountById.delete(record.id);
          this.accountSlot.delete(record.id);
        });
        return record;
      },
      update: async (id, patch) => {
        const next = putAccount(id, (current) => ({ ...current, ...patch, id, credits: current.credits, billedSeq: current.billedSeq }));
        if (next) await db.changed();
        return next;
      },
      adjustCredits: (id, delta, options = {}) => {
        // Applied now (the credit book's checks read the cache synchronously); written in the background.
        let next: AccountRecord | undefined;
        try {
          next = putAccount(id, (current) => withCredits(current, delta, options.billedSeq));
        } catch (error) {
          return Promise.reject(error);
        }
        if (!next) return Promise.resolve(undefined);
        const record = next;
        const written = db.changed(false).then(() => record);
        // Callers on the request path do not wait: a failed write is reported by the db and retried.
        written.catch(() => undefined);
        return written;
      },
      adjustCreditsInBackground: (id, delta, billedSeq) => {
        // No promise per call (one per settlement lived until the batched write, long enough to be promoted):
        // the write's waiter is the db's own, which reports and retries a failed write.
        const list = data().accounts;
        let slot = this.accountSlot.get(id);
        if (slot === undefined || list[slot]?.id !== id) {
          slot = list.findIndex((a) => a.id === id);
          if (slot === -1) return;
          this.accountSlot.set(id, slot);
        }
        const next = withCredits(list[slot], delta, billedSeq);
        list[slot] = next;
        this.accountById.set(id, next);
        void db.changed(false);
      },
    };

    this.keys = {
      list: async (accountId) => data().apiKeys.filter((k) => !accountId || k.accountId === accountId),
      get: async (id) => data().apiKeys.find((k) => k.id === id),
      findByHash: async (hash) => this.keyByHash.get(hash),
      create: async (record) => {
        data().apiKeys.push(record);
        this.keyByHash.set(record.hash, record);
        this.keySlot.set(record.id, data().apiKeys.length - 1);
        // Kept after a failed write: a key whose secret nobody was given.
        await writeCreated(() => data().apiKeys, record, 'key', () => {
          this.keyByHash.delete(record.hash);
          this.keySlot.delete(record.id);
        });
        return record;
      },
      update: async (id, patch) => {
        const next = putKey(id, (current) => ({ ...current, ...patch, id, hash: current.hash, accountId: current.accountId }));
        if (next) await db.changed();
        return next;
      },
      markUsed: (id, at) => {
        // In place: a copy of the record once a second gave the key a new hidden class now and then,
        // and V8 then deoptimised every function that reads keys (auth, limits, pricing, settlement).
        const next = putKey(id, (current) => {
          if (current.lastUsedAt == null || current.lastUsedAt < at) current.lastUsedAt = at;
          return current;
        });
        if (!next) return Promise.resolve();
        const written = db.changed(false);
        written.catch(() => undefined);
        return written;
      },
    };

    this.sessions = {
      findByHash: async (hash) => this.sessionByHash.get(hash),
      create: async (record) => {
        data().sessions.push(record);
        this.sessionByHash.set(record.hash, record);
        await db.changed();
        return record;
      },
      delete: async (id) => {
        const list = data().sessions;
        const index = list.findIndex((s) => s.id === id);
        if (index === -1) return false;
        this.sessionByHash.delete(list[index].hash);
        list.splice(index, 1);
        await db.changed();
        return true;
      },
      deleteForAccount: async (accountId) => {
        const list = data().sessions;
        const keep = list.filter((s) => s.accountId !== accountId);
        const removed = list.length - keep.length;
        if (removed > 0) {
          data().sessions = keep;
          for (const s of list) if (s.accountId === accountId) this.sessionByHash.delete(s.hash);
          await db.changed();
        }
        return removed;
      },
      purgeExpired: async (now) => {
        const list = data().sessions;
        const keep = list.filter((s) => s.expiresAt > now);
        const removed = list.length - keep.length;
        if (removed > 0) {
          data().sessions = keep;
          this.sessionByHash.clear();
          for (const s of keep) this.sessionByHash.set(s.hash, s);
          await db.changed(false);
        }
        return removed;
      },
    };
  }

  /**
   * Opens a data dir: tightens its modes (0700/0600), reads and checks db.json (a file that
   * is not the expected shape stops here, untouched), migrates it after a dated backup, opens
   * the media log and the stored responses.
   */
  static async open(dataDir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const warn = options.warn ?? (() => undefined);
    const insecure = securePrivateTree(dataDir, isDataDirEntry);
    if (insecure.length > 0) warn('data dir: could not restrict access to some paths', { paths: insecure.slice(0, 10) });
    removeDeadSideFiles(dataDir);
    const { db, movedMedia, migration } = await FileDb.open(dataDir, {
      flushDelayMs: options.flushDelayMs,
      onWriteError: (error, attempt) => warn('db.json: write failed; changes are kept in memory and the write is retried', { error: String(error), attempt }),
    });
    const { repo: media, report: mediaReport } = await FileMediaRepo.open(dataDir, {
      onError: (error, what) => warn(`media.jsonl: ${what} failed`, { error: String(error) }),
    });
    try {
      // Moved records are safe in the media log before db.json (which held them) is rewritten.
      if (movedMedia.length > 0) await media.importRecords(movedMedia);
      if (migration) await db.flush();
    } catch (error) {
      await media.close();
      throw error;
    }
    const responses = new FileResponsesRepo(dataDir, (message) => warn(message));
    const conversations = new FileConversationsRepo(dataDir, (message) => warn(message));
    const report: FileStoreReport = { media: mediaReport, insecure };
    if (migration && migration.backup) {
      report.migratedFrom = migration.from;
      report.backup = migration.backup;
    }
    return new FileStore(db, media, responses, conversations, report, dataDir);
  }

  private reindex(): void {
    this.keyByHash.clear();
    this.accountById.clear();
    this.sessionByHash.clear();
    this.keySlot.clear();
    this.db.data.apiKeys.forEach((k, i) => {
      this.keyByHash.set(k.hash, k);
      this.keySlot.set(k.id, i);
    });
    this.accountSlot.clear();
    this.db.data.accounts.forEach((a, i) => {
      this.accountById.set(a.id, a);
      this.accountSlot.set(a.id, i);
    });
    for (const s of this.db.data.sessions) this.sessionByHash.set(s.hash, s);
  }

  /** Re-reads db.json and rebuilds the indexes. */
  async reload(): Promise<void> {
    await this.db.reload();
    this.reindex();
  }

  async flush(): Promise<void> {
    await this.batches.flush();
    await Promise.all([this.db.flush(), this.media.flush(), this.responses.flush(), this.conversations.flush()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.responses.close(), this.conversations.close()]);
    await this.batches.flush();
    await Promise.all([this.db.close(), this.media.close()]);
  }
}
