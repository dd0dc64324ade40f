import type { AccountRecord, ApiKeyRecord, MediaRecord, MediaStatus, MediaType, SessionRecord } from './types.ts';

/** Accounts: looked up by id on every request, by email in the CLI and at login. */
export interface AccountsRepo {
  list(): Promise<AccountRecord[]>;
  get(id: string): AccountRecord | undefined;
  findByEmail(email: string): Promise<AccountRecord | undefined>;
  create(record: AccountRecord): Promise<AccountRecord>;
  update(id: string, patch: Partial<Omit<AccountRecord, 'id'>>): Promise<AccountRecord | undefined>;
}

/** API keys: looked up by hash on every request, so `findByHash` is synchronous and O(1). */
export interface KeysRepo {
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(hash: string): ApiKeyRecord | undefined;
  create(record: ApiKeyRecord): Promise<ApiKeyRecord>;
  update(id: string, patch: Partial<Omit<ApiKeyRecord, 'id' | 'hash'>>): Promise<ApiKeyRecord | undefined>;
}

export interface SessionsRepo {
  findByHash(hash: string): SessionRecord | undefined;
  create(record: SessionRecord): Promise<SessionRecord>;
  delete(id: string): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
  /** Ends every session of an account (its password changed); returns how many. */
  deleteForAccount(accountId: string): Promise<number>;
}

export interface MediaQuery {
  accountId?: string;
  mediaType?: MediaType;
  status?: MediaStatus;
  /** Records created before this (Unix seconds) are expired and never returned. */
  notBefore?: number;
  offset: number;
  limit: number;
}

export interface MediaRepo {
  list(query: MediaQuery): Promise<{ data: MediaRecord[]; total: number }>;
  get(id: string): Promise<MediaRecord | undefined>;
  create(record: MediaRecord): Promise<MediaRecord>;
  update(id: string, patch: Partial<Omit<MediaRecord, 'id' | 'accountId'>>): Promise<MediaRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Deletes records created before `before` (Unix seconds); returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
}

/** All record repositories; the embedded default is FileStore, others come by config. */
export interface Store {
  accounts: AccountsRepo;
  keys: KeysRepo;
  sessions: SessionsRepo;
  media: MediaRepo;
  /** Writes pending changes (shutdown, CLI). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
