/** Stored records and the repository interfaces the rest of the gateway depends on. */
import type { Tier } from '../ir/index.ts';

export type { Tier };

export interface AccountRecord {
  id: string;
  email: string;
  /** scrypt hash (`scrypt$N$r$p$salt$hash`), or null when the account cannot log in. */
  passwordHash: string | null;
  tier: Tier;
  /** Balance in credits (1 credit = 0.001 USD). */
  credits: number;
  /** Monthly token quota; null = unlimited. */
  monthlyTokenQuota: number | null;
  suspended: boolean;
  /** Custom RPM for the account (enterprise "custom"); null = tier default. */
  rpm: number | null;
  createdAt: number;
  /** The last usage-ledger sequence number included in `credits` (replayed after a crash). */
  billedSeq?: number;
  /** Credits the account may spend per UTC calendar month (all keys); null/absent = no cap. */
  spendCap?: number | null;
}

/** Endpoint groups an API key can be scoped to. */
/** A registered wire format's id, or images, audio, files, batches, videos (accounts/key-scope.ts). */
export type KeyEndpoint = string;

/** When a key's spend limit starts over (UTC day, week from Monday, calendar month). */
export type SpendLimitReset = 'daily' | 'weekly' | 'monthly';

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** sha256 hex of the full key; the key itself is never stored. */
  hash: string;
  /** Masked form for display, e.g. `sk-gw-ab12…9f3c`. */
  preview: string;
  rpm: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
  /** Model ids or globs (`openai/*`, `claude-*`) the key may use; null/absent = every model. */
  models?: string[] | null;
  /** Endpoint groups the key may call; null/absent = every endpoint. */
  endpoints?: KeyEndpoint[] | null;
  /** Credits the key may spend per `limitReset` period (all time when none); null/absent = no limit. */
  limit?: number | null;
  limitReset?: SpendLimitReset | null;
  /** Last authenticated use (ms), recorded at most once a second per key. */
  lastUsedAt?: number | null;
}

export interface SessionRecord {
  id: string;
  accountId: string;
  /** sha256 hex of the session token. */
  hash: string;
  createdAt: number;
  expiresAt: number;
}

export type MediaType = 'image' | 'video' | 'music' | 'threed';
export type MediaStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface MediaRecord {
  id: string;
  accountId: string;
  media_type: MediaType;
  status: MediaStatus;
  model: string;
  prompt: string | null;
  parameters: Record<string, unknown>;
  result_urls: string[];
  primary_url: string | null;
  preview_url: string | null;
  file_size_bytes: number | null;
  duration_seconds: number | null;
  width: number | null;
  height: number | null;
  error: string | null;
  created_at: number;
  completed_at: number | null;
  provider_task_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_credits: number | null;
  /** A job the gateway runs for this record (src/jobs); absent on records clients move themselves. */
  job?: MediaJobSlot | null;
}

/**
 * The part of a running job the store understands: whether it still needs work (poll, bill,
 * deliver its webhook) and who works on it (a lease, as for batches); the rest is the job
 * module's own state, opaque here.
 */
export interface MediaJobSlot {
  open: boolean;
  lease: { owner: string; expiresAt: number } | null;
  state: Record<string, unknown>;
}

export interface FileRecord {
  id: string;
  accountId: string;
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  /** The MIME type a Gemini upload named (Google's File `mimeType`); absent on /v1/files uploads. */
  mimeType?: string;
}

/** §3.2: a batch's states (the provider's own state names are never exposed). */
export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

/** One reason an input file was refused (`errors.data[]`). */
export interface BatchErrorData {
  code: string;
  message: string;
  /** 1-based line of the input file, null when the reason is not one line's. */
  line: number | null;
  param: string | null;
}

/** Who is working on a batch: an instance id and when its claim lapses (ms); another instance may take it after. */
export interface BatchLease {
  owner: string;
  expiresAt: number;
}

export interface BatchRecord {
  /** `batch_…`. */
  id: string;
  accountId: string;
  /** The API key that created the batch (its lines are charged against it); null when made without one. */
  keyId: string | null;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: 'list'; data: BatchErrorData[] } | null;
  /** Unix seconds, as in OpenAI's batch object. */
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
  /** How the batch runs: the gateway's own executor, or a provider's batch API. */
  mode: 'emulated' | 'native';
  /** A native batch's upstream state (provider id and the upstream's ids); null when emulated. */
  native: Record<string, unknown> | null;
  lease: BatchLease | null;
  /**
   * The face it was made on, shown there and on `/v1/batches` too: `messages`, Anthropic's
   * `/v1/messages/batches`; `gemini`, Gemini's `models/{model}:batchGenerateContent`.
   */
  face?: 'messages' | 'gemini';
  /** Unix seconds: deleted on its face (gone from that face; its files stay). */
  deletedAt?: number;
  /** The model a Gemini batch was made for (its URL's), as the client named it. */
  model?: string;
  /** A Gemini batch's `displayName`. */
  displayName?: string;
  /** A Gemini batch made from an uploaded file (`inputConfig.fileName`, `files/…`): its results are a responses file, not inline. */
  inputFile?: string;
  /** Unix seconds: that batch's responses file (`files/batch-…`) was deleted, the output and error files it is made from with it. */
  responsesDeletedAt?: number;
  /** The size in bytes of that batch's responses file, counted the first time it was asked (its resource's `sizeBytes`). */
  responsesBytes?: number;
  /**
   * A Message Batch that ended other than `completed`: its results counted from its files, once
   * (the first time it is viewed), so later views read no file and the counts stay as it ended.
   */
  resultCounts?: { succeeded: number; errored: number; canceled: number; expired: number };
}

/**
 * One finished line of a batch (its per-line progress). Written once, when the line ends;
 * a resumed batch skips the lines that have one. `result` is the output or error file line.
 */
export interface BatchLineRecord {
  batchId: string;
  /** 0-based position in the input file. */
  index: number;
  customId: string;
  outcome: 'completed' | 'failed';
  /** The JSONL line (without the newline) for the output (completed) or error (failed) file. */
  result: string;
}

/** A stored Response as it goes in: JSON texts, written without re-serializing them. */
export interface StoredResponseInput {
  /** Minted by the gateway (`resp_…`, random), never taken from the upstream. */
  id: string;
  accountId: string;
  /** Ms epoch. */
  createdAt: number;
  /** The Responses-format request as sent upstream (history already prepended), JSON text. */
  request: string;
  /** The Responses-format response object the client received, JSON text. */
  response: string;
}

/** A stored Response as it comes out: the same, parsed. */
export interface StoredResponse {
  id: string;
  accountId: string;
  createdAt: number;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
}

/** A conversation (OpenAI's Conversations API) as the store keeps it: its items are read apart. */
export interface ConversationRecord {
  /** Minted by the gateway (`conv_…`, random). */
  id: string;
  accountId: string;
  /** Ms epoch. */
  createdAt: number;
  metadata: Record<string, string>;
  /** How many items it holds now, and their JSON texts' bytes together (the bounds read them). */
  itemCount: number;
  itemBytes: number;
}

/** One item of a conversation as it goes in: its id (minted by the gateway when the client sent none) and its JSON text. */
export interface ConversationItemInput {
  id: string;
  /** The item as listed (`id` included), JSON text. */
  item: string;
}

/** A conversation after an append, with the items as they were added (an id it already held renamed). */
export type ConversationAppended = ConversationRecord & { added: ConversationItemInput[] };

/**
 * A conversation held for one turn (`ConversationsRepo.claimTurn`). A hold that lapses (a shared
 * database's lease) has `renew`: its holder calls it while the turn runs; a hold that lasts until
 * released (the file store's, in its one process) has none.
 */
export interface ConversationTurn {
  /** Keeps the hold for another lease from now; false when it had lapsed and another turn took it (or the conversation went). */
  renew?(): Promise<boolean>;
  /** Gives the hold back (a hold another turn took over after it lapsed is left to that turn); a second call does nothing. */
  release(): Promise<void>;
}

/**
 * One page of a conversation's items as the items list asks for it: at most `limit`, in `order`,
 * after the item `after` names (an id it does not hold: the page is `no_item`). An id held twice (kept
 * before ids were made unique) is read at its last place in that order, so paging moves on.
 */
export interface ConversationItemsQuery {
  limit: number;
  after?: string;
  order: 'asc' | 'desc';
}

/** A page of a conversation's items, parsed, and whether more follow it in that order. */
export interface ConversationItemsPage {
  data: Array<Record<string, unknown>>;
  hasMore: boolean;
}

/** Bounds an append checks against the conversation as it is when the append runs (atomically with it). */
export interface ConversationBounds {
  maxItems: number;
  maxBytes: number;
}

/** db.json: the small, hot collections (the Media Library and stored Responses live apart). */
export interface DbData {
  version: number;
  accounts: AccountRecord[];
  apiKeys: ApiKeyRecord[];
  sessions: SessionRecord[];
  files: FileRecord[];
  batches: BatchRecord[];
  /** The files deleted last (FilesRepo.wasDeleted), oldest first; absent until a file is deleted. */
  deletedFiles?: DeletedFile[];
}

/** A file the gateway issued and deleted (or swept once expired): its id is remembered, not its contents. */
export interface DeletedFile {
  accountId: string;
  id: string;
}

/**
 * One settled request in the usage ledger: a `usage.jsonl` line of the file store, a `gw_ledger`
 * row of a database backend (same field names), keyed by `request_id` (settled exactly once).
 */
export interface LedgerRecord {
  /** Position in the ledger: 1-based and gapless per data dir (the billing replay checkpoint), or the row order of a database. */
  seq: number;
  /** Ms epoch of the settlement. */
  ts: number;
  request_id: string;
  account_id: string;
  key_id: string;
  model: string;
  provider: string;
  endpoint: string;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cached_tokens: number;
  /** Hosted web searches the upstream ran and billed per search, when there were any (priced at `pricing.webSearch`). */
  web_search_requests?: number;
  /** Price of the usage in credits, after fallback discount and price multiplier. */
  cost_credits: number;
  /** Credits taken from the balance: the cost, or what was left when the balance ran out. */
  charged_credits: number;
  estimated: boolean;
  aborted: boolean;
  /** Fallback discount applied (fraction off), when there was one. */
  discount?: number;
  /** Price multiplier applied (0.5 for batches), when not 1. */
  price_multiplier?: number;
  /** Per-item units of a media call (images, speech characters, audio seconds). */
  media?: { images?: number; speechCharacters?: number; audioSeconds?: number; mediaSeconds?: number; jobs?: number; providerUsd?: number };
  /**
   * The answer's own id as the client got it (`chatcmpl-…`, `msg_…`, `resp_…`), when it has one
   * other than the request id: OpenRouter's generation stats are asked for by it.
   */
  answer_id?: string;
  /** The finish reason the settlement knew (a whole answer's, a converted stream's), as the answer said it. */
  finish_reason?: string;
  /** True when the answer was streamed (absent: a whole answer, or a line written before the field). */
  streamed?: boolean;
  /** Ms from the request's arrival to its settlement (the answer's end), whole. */
  latency_ms?: number;
}

/** The UTC periods spend is counted in: `YYYY-MM-DD`, the Monday `YYYY-MM-DD`, `YYYY-MM`. */
export interface PeriodKeys {
  day: string;
  week: string;
  month: string;
}

/** Ledger totals of one (UTC day, account, key, model, provider). */
export interface UsageTotalsRow {
  date: string;
  accountId: string;
  keyId: string;
  model: string;
  provider: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Hosted web searches (the ledger's `web_search_requests`, 0 where a line has none). */
  webSearchRequests: number;
  credits: number;
}

/** What /health says about a shared database (PostgreSQL). */
export interface DatabaseState {
  store: 'postgres';
  /** False while it cannot be reached: every request that reads or writes it answers 503 meanwhile. */
  reachable: boolean;
  /** Why not (the driver's code or first line), while not reachable. */
  error?: string;
  /** Since when (unix seconds), while not reachable. */
  since?: number;
}
