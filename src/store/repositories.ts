import type {
  AccountRecord,
  ApiKeyRecord,
  BatchLineRecord,
  BatchRecord,
  BatchStatus,
  ConversationAppended,
  ConversationBounds,
  ConversationItemInput,
  ConversationItemsPage,
  ConversationItemsQuery,
  ConversationRecord,
  ConversationTurn,
  DatabaseState,
  FileRecord,
  LedgerRecord,
  MediaRecord,
  MediaStatus,
  MediaType,
  PeriodKeys,
  SessionRecord,
  StoredResponse,
  StoredResponseInput,
  UsageTotalsRow,
} from './types.ts';

/*
 * The store port: every record kind goes through these interfaces, so the embedded file
 * store and a database backend (PostgreSQL, issue 10) are swapped by config. Conventions:
 *
 * - Every method is async. A mutation applies to the backend's cache before it returns
 *   (a read right after sees it) and its promise resolves once the change is durable
 *   (file store: handed to the kernel, so a killed process keeps it; a database: committed).
 *   Callers on the request path that must not wait (balances) do not await it; the change
 *   is still applied in memory at once and written in the background.
 * - Reads the request path needs synchronously go through `StoreCache` instead.
 * - Ids are minted by the callers (`newId`), never by a backend, so a record has its id
 *   before it is stored and a retried write cannot create a twin.
 */

/**
 * What the request path reads without waiting: the live accounts, API keys and sessions,
 * held in memory by every backend. A backend keeps it complete and current (the file store
 * owns the data; a shared database loads it at start and applies other instances' changes
 * as they are announced), so a miss means the record does not exist.
 */
export interface StoreCache {
  account(id: string): AccountRecord | undefined;
  keyByHash(hash: string): ApiKeyRecord | undefined;
  sessionByHash(hash: string): SessionRecord | undefined;
}

/** Accounts: looked up by id on every request (through the cache), by email in the CLI and at login. */
export interface AccountsRepo {
  list(): Promise<AccountRecord[]>;
  get(id: string): Promise<AccountRecord | undefined>;
  findByEmail(email: string): Promise<AccountRecord | undefined>;
  /** Rejects with EmailTakenError when another account has the email (ignoring case), atomically with the insert. */
  create(record: AccountRecord): Promise<AccountRecord>;
  update(id: string, patch: Partial<Omit<AccountRecord, 'id' | 'credits' | 'billedSeq'>>): Promise<AccountRecord | undefined>;
  /**
   * Adds `delta` credits (negative for a charge) to the balance as one atomic step (a
   * database runs `credits = credits + delta`, never a read-modify-write), and moves the
   * usage-ledger checkpoint `billedSeq` forward when given.
   */
  adjustCredits(id: string, delta: number, options?: { billedSeq?: number }): Promise<AccountRecord | undefined>;
  /**
   * adjustCredits for a caller that never waits (the settlement of every request): the same
   * change, applied to the cache at once, with no promise made; a non-finite result throws, a
   * failed write is reported and retried by the store. Optional: callers fall back to adjustCredits.
   */
  adjustCreditsInBackground?(id: string, delta: number, billedSeq?: number): void;
}

/** API keys: looked up by hash on every request (through the cache). */
export interface KeysRepo {
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  create(record: ApiKeyRecord): Promise<ApiKeyRecord>;
  update(id: string, patch: Partial<Omit<ApiKeyRecord, 'id' | 'hash' | 'accountId'>>): Promise<ApiKeyRecord | undefined>;
  /**
   * Notes a key's last use (request path, never awaited there): applied to the cache at once,
   * written with the next batch (a database may coalesce these); moves `lastUsedAt` forward only.
   * A failed write is reported by the store itself; the promise's rejection is only for callers that wait.
   */
  markUsed(id: string, at: number): Promise<void>;
}

/** Dashboard sessions (the token is stored as a hash only). */
export interface SessionsRepo {
  findByHash(hash: string): Promise<SessionRecord | undefined>;
  create(record: SessionRecord): Promise<SessionRecord>;
  delete(id: string): Promise<boolean>;
  /** Deletes sessions that expired at or before `now` (ms); returns how many. */
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
  /** 0 asks for the total only. */
  limit: number;
}

/** Media Library records: newest first, paged, counted per account. */
export interface MediaRepo {
  list(query: MediaQuery): Promise<{ data: MediaRecord[]; total: number }>;
  get(id: string): Promise<MediaRecord | undefined>;
  create(record: MediaRecord): Promise<MediaRecord>;
  update(id: string, patch: Partial<Omit<MediaRecord, 'id' | 'accountId'>>): Promise<MediaRecord | undefined>;
  /**
   * Changes a record from its freshest stored state in one atomic step (a database: the row
   * held while `change` runs), so changes from several places or instances never write over
   * each other (a job's cancel and a poll). `change` returns the fields to set, or undefined
   * to leave the record as it is. Resolves with the record as stored, or undefined when it is gone.
   */
  updateWith(id: string, change: (current: MediaRecord) => Partial<Omit<MediaRecord, 'id' | 'accountId'>> | undefined): Promise<MediaRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Deletes records created before `before` (Unix seconds); returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
  /**
   * What an account's records created at or after `notBefore` (Unix seconds) take: how many,
   * and their bytes as stored (`JSON.stringify` of each, UTF-8), for the per-account caps.
   */
  usage(accountId: string, notBefore?: number): Promise<{ records: number; bytes: number }>;
  /**
   * Takes (or renews) the lease of an open job: succeeds when it has no lease, the lease has
   * lapsed (`expiresAt <= now`) or `owner` holds it; one atomic step, so two instances never
   * both hold one. Returns the record with the new lease, or undefined.
   */
  claimJob(id: string, owner: string, now: number, leaseMs: number): Promise<MediaRecord | undefined>;
  /** Drops `owner`'s lease of a job (a clean stop); another owner's lease is left alone. */
  releaseJob(id: string, owner: string): Promise<void>;
  /**
   * Records with an open job nobody holds a live lease on at `now`, or `owner` holds (its own
   * jobs after a restart are taken back at once), oldest first (at most `limit`).
   */
  claimableJobs(now: number, limit: number, owner?: string): Promise<MediaRecord[]>;
}

/**
 * Stored Responses (`previous_response_id`, `GET /v1/responses/{id}`). Always read by owner:
 * another account's id is the same as a missing one. The request and response go in as
 * JSON text (no re-serialization of a large body on the event loop) and come out parsed.
 */
export interface ResponsesRepo {
  save(record: StoredResponseInput): Promise<void>;
  get(accountId: string, id: string): Promise<StoredResponse | undefined>;
  delete(accountId: string, id: string): Promise<boolean>;
  /** Deletes responses created before `before` (ms); returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
  /**
   * Bytes of stored responses the account keeps (`storage.responsesQuotaBytes`): a figure kept
   * up to date by every save and delete and surviving a restart, never a scan of the records.
   */
  bytesOf(accountId: string): Promise<number>;
}

/**
 * Conversations (OpenAI's Conversations API over the Responses store): a conversation and its
 * items in order. Always read by owner: another account's id is the same as a missing one.
 * Items go in as JSON texts and come out parsed, oldest first.
 */
export interface ConversationsRepo {
  /** A new conversation with its first items (bounded by the caller). */
  create(record: Omit<ConversationRecord, 'itemCount' | 'itemBytes'>, items: ConversationItemInput[]): Promise<ConversationRecord>;
  get(accountId: string, id: string): Promise<ConversationRecord | undefined>;
  /** Replaces the metadata; undefined when the account has no such conversation. */
  setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<ConversationRecord | undefined>;
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Adds items at the end, all or none: `not_found` when the account has no such conversation, `full`
   * when `bounds` are given and the items would take it past them (checked with the append, so two
   * appends at once cannot both pass), else the conversation as it is after, with the items added.
   * With `rename`, an item whose id the conversation already holds (or an earlier item of the same
   * append) goes in as `rename` gives it, under a new id, checked with the append: an id names one
   * item, so a list's `after` cursor always moves on (`renameTakenIds`).
   */
  append(
    accountId: string,
    id: string,
    items: ConversationItemInput[],
    bounds?: ConversationBounds,
    rename?: (entry: ConversationItemInput) => ConversationItemInput,
  ): Promise<ConversationAppended | 'not_found' | 'full'>;
  /**
   * Holds the conversation for one turn (a Responses request naming it: the turn reads its items
   * and adds its own), so two turns never run on it at once: `busy` while another turn holds it
   * (in this process or, on a shared database, on any instance), else the hold. A database's hold
   * is a lease that lapses `leaseMs` after it was taken or last renewed (on the database's clock),
   * so an instance that died holding it blocks the conversation that long at most; the file
   * store's lasts until released (one process). A conversation the account does not have is not
   * refused here: the turn's read of it answers that.
   */
  claimTurn(accountId: string, id: string, leaseMs: number): Promise<ConversationTurn | 'busy'>;
  /** Every item, oldest first (a turn's history); undefined when the account has no such conversation. */
  items(accountId: string, id: string): Promise<Array<Record<string, unknown>> | undefined>;
  /**
   * One page of the items (the items list), reading only those; undefined when the account has no
   * such conversation, `no_item` when `after` names no item it holds (never held, or deleted).
   */
  page(accountId: string, id: string, query: ConversationItemsQuery): Promise<ConversationItemsPage | 'no_item' | undefined>;
  /** The item with this id (its first place, as `deleteItem` finds it): `not_found` (no such conversation) or `no_item`. */
  item(accountId: string, id: string, itemId: string): Promise<Record<string, unknown> | 'not_found' | 'no_item'>;
  /** Removes one item: the conversation after, `not_found` (no such conversation), or `no_item`. */
  deleteItem(accountId: string, id: string, itemId: string): Promise<ConversationRecord | 'not_found' | 'no_item'>;
  /**
   * Bytes the account's conversations take (counted in `storage.responsesQuotaBytes`): kept up to
   * date by every change and surviving a restart; never a scan of every account's records.
   */
  bytesOf(accountId: string): Promise<number>;
}

/** A page of a list read newest first, after a cursor (OpenAI's `limit`/`after`/`has_more`). */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export interface FilesQuery {
  accountId: string;
  purpose?: string;
  /** The id of the last record of the previous page; unknown ids give an empty page. */
  after?: string;
  limit: number;
  /** Newest first (`desc`, the default) or oldest first (`asc`). */
  order?: 'asc' | 'desc';
}

/**
 * Uploaded files (`/v1/files`) and the files a batch writes. The record is in the records
 * store; the contents are kept apart (file backend: `<dataDir>/files/<id>`, 0600; never in
 * db.json). Always read by owner: another account's id is the same as a missing one.
 */
export interface FilesRepo {
  /** Newest first (created_at, then the later-created first). */
  list(query: FilesQuery): Promise<Page<FileRecord>>;
  get(accountId: string, id: string): Promise<FileRecord | undefined>;
  /** Stores the contents first, then the record: a record never points at missing contents. */
  create(record: FileRecord, content: Uint8Array): Promise<FileRecord>;
  /**
   * Like `create`, with the contents in a file on disk (an upload streamed to the data dir),
   * read or moved without holding them in memory; the file is gone afterwards, stored or not.
   */
  createFromFile(record: FileRecord, staged: string): Promise<FileRecord>;
  /** Bytes of the account's files (its storage quota counts them). */
  bytesOf(accountId: string): Promise<number>;
  content(accountId: string, id: string): Promise<Buffer | undefined>;
  /** The contents a piece at a time (a file larger than memory should hold), or undefined when there is no such file. */
  contentChunks(accountId: string, id: string): Promise<AsyncIterable<Buffer> | undefined>;
  /** Deletes the record and the contents, and remembers the id (`wasDeleted`). */
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Whether the account had a file of this id that was deleted (by the client, a batch, or the
   * expiry sweep): a prompt that still names it (a conversation's earlier turn) is answered by the
   * gateway rather than sent on as if the id were the upstream's. The file store remembers the
   * last DELETED_FILES_KEPT deletions; PostgreSQL all of them (one small row each).
   */
  wasDeleted(accountId: string, id: string): Promise<boolean>;
  /** Files whose `expires_at` (seconds) is at or before `now`, any account's, at most `limit` (the expiry sweep deletes them). */
  expired(now: number, limit: number): Promise<Array<{ accountId: string; id: string }>>;
}

/**
 * A resumable upload in progress (Gemini's Files API): the file it becomes, and the bytes
 * received so far, kept by the store until `finish` stores the file.
 */
export interface UploadSession {
  id: string;
  /** The file the upload becomes (`bytes` the size its start declared). */
  file: FileRecord;
  received: number;
  /** Epoch ms after which the upload URL takes no more chunks. */
  expiresAt: number;
}

/**
 * Resumable uploads. On the file store they live in the process (one process serves the data
 * dir); on PostgreSQL in the database, chunks in `gw_file_chunks` as they come, so any instance
 * takes any chunk of an upload another instance started (behind a load balancer).
 */
export interface UploadsRepo {
  start(session: UploadSession): Promise<void>;
  /** The account's upload, if it is there and `expiresAt` has not come. */
  get(accountId: string, id: string, now: number): Promise<UploadSession | undefined>;
  /**
   * Adds the bytes staged in the file `staged` (removed afterwards, whatever happens) when the
   * upload has received exactly `offset` bytes; the bytes received now, or undefined when the
   * upload is gone or another chunk came first (its offset is no longer `offset`).
   */
  append(accountId: string, id: string, offset: number, staged: string, now: number): Promise<number | undefined>;
  /** Stores `file` (the upload's record, its times set) with the bytes received, and ends the upload; false when it is gone or incomplete. */
  finish(accountId: string, id: string, file: FileRecord, now: number): Promise<boolean>;
  /** The account's open uploads: how many, and the sizes they declared (its file quota holds them). */
  reservedBy(accountId: string, now: number): Promise<{ uploads: number; bytes: number }>;
  /** Drops the uploads whose `expiresAt` has come, and their bytes; how many. */
  purgeExpired(now: number): Promise<number>;
}

export interface BatchesQuery {
  accountId?: string;
  status?: readonly BatchStatus[];
  /** Only the batches made on this face and not deleted there: what that face lists. */
  face?: NonNullable<BatchRecord['face']>;
  after?: string;
  limit: number;
  /** Newest first (the default) or oldest first; `after` is the anchor either way (oldest first from it: the page just newer than it). */
  order?: 'asc' | 'desc';
}

/**
 * Batches (`/v1/batches`): the records, the lease that says which instance works on one,
 * and the per-line progress that lets a batch resume after a crash (no line run twice).
 */
export interface BatchesRepo {
  /** Newest first, like files. */
  list(query: BatchesQuery): Promise<Page<BatchRecord>>;
  get(id: string): Promise<BatchRecord | undefined>;
  create(record: BatchRecord): Promise<BatchRecord>;
  update(id: string, patch: Partial<Omit<BatchRecord, 'id' | 'accountId'>>): Promise<BatchRecord | undefined>;
  /**
   * Takes (or renews) the lease of a batch that is not finished: succeeds when it has no
   * lease, the lease has lapsed (`expiresAt <= now`) or `owner` already holds it. One atomic
   * step (a database: a conditional UPDATE), so two instances never both hold one.
   * Returns the record with the new lease, or undefined.
   */
  claim(id: string, owner: string, now: number, leaseMs: number): Promise<BatchRecord | undefined>;
  /** Drops `owner`'s lease (a clean stop); another owner's lease is left alone. */
  release(id: string, owner: string): Promise<void>;
  /** Unfinished batches (validating, in_progress, finalizing, cancelling) nobody holds a live lease on at `now`, oldest first. */
  claimable(now: number): Promise<BatchRecord[]>;
  /**
   * Records a finished line, durably before it resolves. The first record of a line wins:
   * a second one for the same (batchId, index) is ignored and `false` returned.
   */
  saveLine(line: BatchLineRecord): Promise<boolean>;
  /** A batch's finished lines, by index. */
  lines(batchId: string): Promise<BatchLineRecord[]>;
  /** Drops a batch's per-line progress (once its output and error files are written). */
  deleteLines(batchId: string): Promise<void>;
}

/** What an admitted request asks to hold (see `CreditsRepo.hold`). */
export interface HoldRequest {
  /** Unique per request: the hold and, later, the ledger row are keyed by it. */
  requestId: string;
  accountId: string;
  /** The key that made the request: its spend limit counts the hold. */
  keyId: string;
  credits: number;
  /** Input tokens (an estimate), held against the monthly token quota. */
  tokens: number;
  /** Check the balance (`billing.enforce`); the ceilings and the quota are always checked. */
  enforce: boolean;
  /** A priced request whose size is unknown up front needs some balance even at 0 credits. */
  needsBalance: boolean;
  /** The periods of now (spend limits and the quota count these). */
  periods: PeriodKeys;
}

/**
 * What a hold found: `ok` (held), or which check refused it, with the numbers for the error:
 * `quota` (used = tokens this month, limit = the quota), `key_limit` / `account_cap` (used =
 * spent this period, limit = the ceiling, reserved = held against it), `balance`, `no_account`.
 */
export interface HoldOutcome {
  outcome: 'ok' | 'no_account' | 'quota' | 'key_limit' | 'account_cap' | 'balance';
  credits: number;
  reserved: number;
  used: number;
  limit: number;
  reservedTokens: number;
}

/** A settlement: the ledger row (its `charged_credits` is decided by the backend) and the rules. */
export interface SettleRequest {
  entry: Omit<LedgerRecord, 'seq' | 'charged_credits'>;
  enforce: boolean;
  /** The periods of `entry.ts`. */
  periods: PeriodKeys;
}

export interface SettleOutcome {
  /** False when a row with this request id was already there: nothing was charged again. */
  inserted: boolean;
  /** What was taken from the balance (no more than the balance and every ceiling allowed). */
  charged: number;
  seq?: number;
}

/** A line of an instance's settlement outbox sent to the database (`CreditsRepo.flush`). */
export interface FlushItem {
  /** The ledger row; `charged_credits` is what the instance took from its slice (lines with `lease`), else decided by the backend. */
  entry: Omit<LedgerRecord, 'seq'>;
  /** The lease hold the charge comes out of (admitted from a leased slice). */
  lease?: string;
  /**
   * The instance whose hold of the request the line ends (admitted request by request there):
   * only that hold is given back, not one another instance took for the same request id since.
   * Absent: none (from a slice, or nothing held).
   */
  holder?: string;
  /** The periods of `entry.ts`. */
  periods: PeriodKeys;
}

/** What topping up a leased slice did: `ok` (granted), `small` (too little available: admit request by request), `exact` (a cap or quota: request by request). */
export interface LeaseOutcome {
  outcome: 'ok' | 'small' | 'exact' | 'no_account';
  granted: number;
  /** What the lease hold has now. */
  held: number;
}

/** The live money state of an account (and its keys) for the usage views. */
export interface CreditState {
  credits: number;
  /** Held by requests in flight and by leased slices (`leased`), on every instance. */
  reserved: number;
  /** Of `reserved`, what instances hold as leased slices (admission from memory). */
  leased: number;
  reservedTokens: number;
  /** All-time charged credits per key of the account (`spent_total`). */
  keyTotals: Map<string, number>;
  /** Credits held by requests in flight per key that has a spend limit. */
  keyReserved: Map<string, number>;
}

/**
 * Credits shared by every instance of a database backend: holds for requests in flight,
 * the usage ledger and the spend aggregates, each changed by one atomic call. The file store
 * has none (one process owns a data dir: its in-process credit book and JSONL ledger).
 */
export interface CreditsRepo {
  /**
   * One round trip: checks the quota, the key's spend limit, the account's monthly cap and
   * (enforcing) the balance against what is spent and held on every instance, and holds.
   */
  hold(request: HoldRequest): Promise<HoldOutcome>;
  /** `hold` for several requests in one call (one round trip); outcomes in the same order. */
  holdMany(requests: readonly HoldRequest[]): Promise<HoldOutcome[]>;
  /**
   * Gives back a hold this instance took; false when it is not there (released, settled, swept)
   * or is another instance's (the same request id admitted there since: a batch line re-run).
   */
  release(requestId: string): Promise<boolean>;
  /**
   * Gives back a hold a previous run of this instance's data dir took (a leased slice its kept
   * settlements name, sent at the next start), whatever instance id that run had; false when it
   * is not there. Only for lease ids, which no other instance admits again.
   */
  releaseLeft(leaseId: string): Promise<boolean>;
  /**
   * Exactly once per request id: inserts the ledger row and, only then, charges the balance and
   * adds to the period aggregates, in one transaction; gives back the request's hold this
   * instance took (inserted or not), never one another instance holds for the same id.
   */
  settle(request: SettleRequest): Promise<SettleOutcome>;
  /** `settle` for several requests in one call (one round trip); outcomes in the same order. */
  settleMany(requests: readonly SettleRequest[]): Promise<SettleOutcome[]>;
  /** This instance's id (holds and leases are marked with it; the sweep gives back those of instances that stopped). */
  readonly instance: string;
  /**
   * Tops up a leased slice (one statement): holds up to `want` more credits of the account's
   * available balance (at most a quarter of it) under the hold `leaseId`; nothing when less
   * than `min` is available, or the account has a spend cap or token quota.
   */
  lease(leaseId: string, accountId: string, want: number, min: number): Promise<LeaseOutcome>;
  /**
   * Settles the lines of a settlement outbox in one call (one transaction), exactly once per
   * request id; outcomes in the same order. Rejects with an error marked `refused: true` when
   * the database refuses the data itself (the same call would fail again), not its connection.
   */
  flush(items: readonly FlushItem[], enforce: boolean): Promise<SettleOutcome[]>;
  /**
   * Asks the other instances to give back their slices of an account (an admission was refused
   * while they may hold credit idle): returns what they hold as slices; the request is sent only
   * when that is more than 0. Backends without instances to ask have none.
   */
  recall?(accountId: string): Promise<number>;
  /** Called with the account id when another instance (or this one) asks for slices of it back. */
  onRecall?(handler: (accountId: string) => void): void;
  /** The account's balance, holds and per-key totals; undefined for an unknown account. */
  state(accountId: string): Promise<CreditState | undefined>;
  /** What each key has charged all time (`spent_total`) and holds now, of one account or all. */
  keySpend(accountId?: string): Promise<Array<{ keyId: string; accountId: string; total: number; reserved: number }>>;
  /** Ledger totals per (UTC day, account, key, model, provider) of rows at or after `since` (ms). */
  usageTotals(query: { accountId?: string; since?: number }): Promise<UsageTotalsRow[]>;
  /** The request ids of ledger rows that start with `prefix`. */
  billedRequests(prefix: string): Promise<Set<string>>;
  /** Ledger rows in order (`seq`), after `afterSeq`. */
  ledger(query: { accountId?: string; afterSeq?: number; limit: number }): Promise<LedgerRecord[]>;
  /** One account's ledger rows, newest first, older than `before` (`{ts, seq}` of the last row of the previous page). */
  recentLedger(query: { accountId: string; before?: { ts: number; seq: number }; limit: number }): Promise<LedgerRecord[]>;
  /** Says this instance is alive (its holds are kept). */
  beat(): Promise<void>;
  /** Gives back the holds of instances not seen for `staleMs`; returns how many. */
  releaseStale(staleMs: number): Promise<number>;
  /** Forgets this instance (a clean stop): holds it still has are released by the next sweep. */
  leave(): Promise<void>;
}

/** Every record kind behind one port; the embedded default is FileStore, others come by config. */
export interface Store {
  readonly cache: StoreCache;
  readonly accounts: AccountsRepo;
  readonly keys: KeysRepo;
  readonly sessions: SessionsRepo;
  readonly media: MediaRepo;
  readonly responses: ResponsesRepo;
  readonly conversations: ConversationsRepo;
  readonly files: FilesRepo;
  readonly uploads: UploadsRepo;
  readonly batches: BatchesRepo;
  /** Credits shared across instances (a database backend); absent on the file store. */
  readonly credits?: CreditsRepo;
  /**
   * Claims a periodic job for one run (a database backend shared by several instances): true
   * for exactly one caller when the job last ran at least `everyMs` ago (on the database's
   * clock), false for everyone else. Absent on the file store, where one process runs it.
   */
  claimJob?(name: string, everyMs: number): Promise<boolean>;
  /**
   * Whether the shared database can be reached (a database backend), from memory: `failed` is
   * told of a request's failure (it keeps those that say the database is away), `state` is what
   * /health reports. Absent on the file store.
   */
  readonly database?: { state(): DatabaseState; failed(error: unknown): void };
  /** Waits until every change made so far is durable (shutdown, CLI commands). */
  flush(): Promise<void>;
  /** Flushes and releases files or connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
