import { FileDb } from './file-db.ts';
import type { AccountsRepo, KeysRepo, MediaQuery, MediaRepo, SessionsRepo, Store } from './repositories.ts';
import type { AccountRecord, ApiKeyRecord, MediaRecord, SessionRecord } from './types.ts';

/** Replaces the element with `id` by a patched copy; returns it. */
function patchIn<T extends { id: string }>(list: T[], id: string, patch: NoInfer<Partial<T>>): T | undefined {
  const index = list.findIndex((r) => r.id === id);
  if (index === -1) return undefined;
  const next = { ...list[index], ...patch, id } as T;
  list[index] = next;
  return next;
}

/** The embedded store over one lowdb file, with in-memory indexes for the request path. */
export class FileStore implements Store {
  readonly accounts: AccountsRepo;
  readonly keys: KeysRepo;
  readonly sessions: SessionsRepo;
  readonly media: MediaRepo;
  private readonly keyByHash = new Map<string, ApiKeyRecord>();
  private readonly accountById = new Map<string, AccountRecord>();
  /** Position of each account in the stored list: every settlement updates one, so no scan. */
  private readonly accountSlot = new Map<string, number>();
  private readonly sessionByHash = new Map<string, SessionRecord>();

  private constructor(readonly db: FileDb) {
    this.reindex();
    const data = () => db.data;
    const changed = () => db.markDirty();

    this.accounts = {
      list: async () => [...data().accounts],
      get: (id) => this.accountById.get(id),
      findByEmail: async (email) => data().accounts.find((a) => a.email.toLowerCase() === email.toLowerCase()),
      create: async (record) => {
        data().accounts.push(record);
        this.accountById.set(record.id, record);
        this.accountSlot.set(record.id, data().accounts.length - 1);
        changed();
        return record;
      },
      update: async (id, patch) => {
        const list = data().accounts;
        let slot = this.accountSlot.get(id);
        if (slot === undefined || list[slot]?.id !== id) {
          slot = list.findIndex((a) => a.id === id);
          if (slot === -1) return undefined;
          this.accountSlot.set(id, slot);
        }
        const next: AccountRecord = { ...list[slot], ...patch, id };
        list[slot] = next;
        this.accountById.set(id, next);
        changed();
        return next;
      },
    };

    this.keys = {
      list: async (accountId) => data().apiKeys.filter((k) => !accountId || k.accountId === accountId),
      get: async (id) => data().apiKeys.find((k) => k.id === id),
      findByHash: (hash) => this.keyByHash.get(hash),
      create: async (record) => {
        data().apiKeys.push(record);
        this.keyByHash.set(record.hash, record);
        changed();
        return record;
      },
      update: async (id, patch) => {
        const next = patchIn(data().apiKeys, id, patch);
        if (next) {
          this.keyByHash.set(next.hash, next);
          changed();
        }
        return next;
      },
    };

    this.sessions = {
      findByHash: (hash) => this.sessionByHash.get(hash),
      create: async (record) => {
        data().sessions.push(record);
        this.sessionByHash.set(record.hash, record);
        changed();
        return record;
      },
      delete: async (id) => {
        const list = data().sessions;
        const index = list.findIndex((s) => s.id === id);
        if (index === -1) return false;
        this.sessionByHash.delete(list[index].hash);
        list.splice(index, 1);
        changed();
        return true;
      },
      deleteForAccount: async (accountId) => {
        const list = data().sessions;
        const keep = list.filter((s) => s.accountId !== accountId);
        const removed = list.length - keep.length;
        if (removed > 0) {
          data().sessions = keep;
          for (const s of list) if (s.accountId === accountId) this.sessionByHash.delete(s.hash);
          changed();
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
          changed();
        }
        return removed;
      },
    };

    this.media = {
      list: async (query: MediaQuery) => {
        const matches = data().media.filter(
          (m) =>
            (!query.accountId || m.accountId === query.accountId) &&
            (!query.mediaType || m.media_type === query.mediaType) &&
            (!query.status || m.status === query.status) &&
            (query.notBefore === undefined || m.created_at >= query.notBefore),
        );
        // Newest first; records of the same second keep their insertion order, newest first too.
        matches.reverse().sort((a, b) => b.created_at - a.created_at);
        return { data: matches.slice(query.offset, query.offset + query.limit), total: matches.length };
      },
      get: async (id) => data().media.find((m) => m.id === id),
      create: async (record: MediaRecord) => {
        data().media.push(record);
        changed();
        return record;
      },
      update: async (id, patch) => {
        const next = patchIn(data().media, id, patch);
        if (next) changed();
        return next;
      },
      delete: async (id) => {
        const list = data().media;
        const index = list.findIndex((m) => m.id === id);
        if (index === -1) return false;
        list.splice(index, 1);
        changed();
        return true;
      },
      purgeCreatedBefore: async (before) => {
        const list = data().media;
        const keep = list.filter((m) => m.created_at >= before);
        const removed = list.length - keep.length;
        if (removed > 0) {
          data().media = keep;
          changed();
        }
        return removed;
      },
    };
  }

  static async open(dataDir: string, options: { flushDelayMs?: number } = {}): Promise<FileStore> {
    return new FileStore(await FileDb.open(dataDir, options));
  }

  private reindex(): void {
    this.keyByHash.clear();
    this.accountById.clear();
    this.sessionByHash.clear();
    for (const k of this.db.data.apiKeys) this.keyByHash.set(k.hash, k);
    this.accountSlot.clear();
    this.db.data.accounts.forEach((a, i) => {
      this.accountById.set(a.id, a);
      this.accountSlot.set(a.id, i);
    });
    for (const s of this.db.data.sessions) this.sessionByHash.set(s.hash, s);
  }

  /** Re-reads the file and rebuilds the indexes. */
  async reload(): Promise<void> {
    await this.db.reload();
    this.reindex();
  }

  flush(): Promise<void> {
    return this.db.flush();
  }

  async close(): Promise<void> {
    await this.db.flush();
  }
}
