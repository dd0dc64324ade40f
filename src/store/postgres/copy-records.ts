import type pg from 'pg';
import type { FileStore } from '../file/file-store.ts';
import type { LedgerRecord } from '../types.ts';
import { ACCOUNT_INSERT, KEY_INSERT } from './rows.ts';
import { accountParams, keyParams } from './rows.ts';
import { PostgresBatchesRepo } from './postgres-batches-repo.ts';
import { PostgresFilesRepo } from './postgres-files-repo.ts';
import { PostgresMediaRepo } from './postgres-media-repo.ts';
import { PostgresResponsesRepo } from './postgres-responses-repo.ts';
import { PostgresConversationsRepo } from './postgres-conversations-repo.ts';
import { searchCount } from './postgres-credits-repo.ts';

/**
 * Copying a data dir's records into PostgreSQL (`gateway store migrate --to`) and counting
 * what a database holds (the check after the copy, `gateway store check`). The copy runs on
 * one client inside the caller's transaction, through the same SQL the PostgreSQL store
 * writes with, so a copied record is exactly what the store would have written.
 */

/** How many records of each kind, and the figures the copy is verified by. */
export interface RecordCounts {
  accounts: number;
  keys: number;
  sessions: number;
  media: number;
  responses: number;
  conversations: number;
  files: number;
  /** Bytes of every file's contents together. */
  fileBytes: number;
  batches: number;
  /** Finished lines of unfinished batches (their resume points). */
  batchLines: number;
  /** Every balance together (credits). */
  credits: number;
}

/** The gateway's record tables, the kind each holds, in the order counts are shown. */
export const RECORD_TABLES: ReadonlyArray<{ table: string; kind: keyof RecordCounts }> = [
  { table: 'gw_accounts', kind: 'accounts' },
  { table: 'gw_api_keys', kind: 'keys' },
  { table: 'gw_sessions', kind: 'sessions' },
  { table: 'gw_media', kind: 'media' },
  { table: 'gw_responses', kind: 'responses' },
  { table: 'gw_conversations', kind: 'conversations' },
  { table: 'gw_files', kind: 'files' },
  { table: 'gw_batches', kind: 'batches' },
  { table: 'gw_batch_lines', kind: 'batchLines' },
];

/** Anything that runs a query: a pool or one client (inside a transaction). */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Keeps credits to a millionth (what billing rounds to). */
export function roundMicro(credits: number): number {
  return Math.round(credits * 1e6) / 1e6;
}

/** The gateway tables of a database that hold rows: `[]` means there is nothing to overwrite. */
export async function nonEmptyTables(db: Queryable): Promise<Array<{ table: string; rows: number }>> {
  const out: Array<{ table: string; rows: number }> = [];
  for (const table of [...RECORD_TABLES.map((t) => t.table), 'gw_ledger']) {
    const { rows } = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [table]);
    if (!rows[0].present) continue;
    const count = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
    if (count.rows[0].n > 0) out.push({ table, rows: count.rows[0].n });
  }
  return out;
}

/** What a database holds (tables that do not exist count 0). */
export async function countPostgresRecords(db: Queryable): Promise<RecordCounts> {
  const counts: RecordCounts = { accounts: 0, keys: 0, sessions: 0, media: 0, responses: 0, conversations: 0, files: 0, fileBytes: 0, batches: 0, batchLines: 0, credits: 0 };
  for (const { table, kind } of RECORD_TABLES) {
    const { rows } = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [table]);
    if (!rows[0].present) continue;
    const count = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
    counts[kind] = count.rows[0].n;
  }
  if (counts.files > 0) {
    const { rows } = await db.query<{ bytes: number }>('select coalesce(sum(octet_length(content)), 0)::bigint as bytes from gw_files');
    counts.fileBytes = Number(rows[0].bytes);
  }
  if (counts.accounts > 0) {
    const { rows } = await db.query<{ credits: number }>('select coalesce(sum(credits), 0) as credits from gw_accounts');
    counts.credits = roundMicro(Number(rows[0].credits));
  }
  return counts;
}

/** Every account's balance in a database, by id. */
export async function postgresBalances(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; credits: number }>('select id, credits from gw_accounts');
  return new Map(rows.map((r) => [r.id, Number(r.credits)]));
}

/** A record that could not be copied: stops the copy with one line naming it. */
export class CopyError extends Error {
  override name = 'CopyError';
}

/**
 * Copies every record of an open file store into PostgreSQL through `client` (the caller
 * holds a transaction and commits only after checking the counts). Leases of unfinished
 * batches are dropped: the instance that held them is stopped, and the first instance on the
 * database takes the batch over at once instead of after the lease. Returns what was read
 * from the source, to check the database against.
 */
export async function copyFileStore(source: FileStore, client: Queryable, options: { onProgress?: (kind: string, done: number) => void } = {}): Promise<RecordCounts> {
  const db = client as unknown as pg.Pool; // the repositories only ever call query()
  const counts: RecordCounts = { accounts: 0, keys: 0, sessions: 0, media: 0, responses: 0, conversations: 0, files: 0, fileBytes: 0, batches: 0, batchLines: 0, credits: 0 };
  const progress = options.onProgress ?? (() => undefined);
  const data = source.db.data;

  // The database keeps one account per email, ignoring case (migration 10): name every pair
  // rather than fail on the unique index with the first.
  const byEmail = new Map<string, typeof data.accounts>();
  for (const account of data.accounts) {
    const email = account.email.toLowerCase();
    byEmail.set(email, [...(byEmail.get(email) ?? []), account]);
  }
  const shared = [...byEmail].filter(([, accounts]) => accounts.length > 1);
  if (shared.length > 0) {
    const named = shared.map(([email, accounts]) => `${email} (${accounts.map((a) => `${a.id} <${a.email}>`).join(', ')})`).join('; ');
    throw new CopyError(`accounts share an email (ignoring case), which the database refuses: ${named}; give all but one of each another email in db.json (server stopped), then run again`);
  }

  let credits = 0;
  for (const account of data.accounts) {
    await client.query(ACCOUNT_INSERT, accountParams(account));
    credits += account.credits;
    counts.accounts += 1;
  }
  counts.credits = roundMicro(credits);
  progress('accounts', counts.accounts);

  for (const key of data.apiKeys) {
    await client.query(KEY_INSERT, keyParams(key));
    counts.keys += 1;
  }
  progress('keys', counts.keys);

  for (const s of data.sessions) {
    await client.query('insert into gw_sessions (id, account_id, hash, created_at, expires_at) values ($1, $2, $3, $4, $5)', [s.id, s.accountId, s.hash, s.createdAt, s.expiresAt]);
    counts.sessions += 1;
  }
  progress('sessions', counts.sessions);

  // Oldest first, so PostgreSQL's insertion order (the tie-break of a list) matches the log's.
  const media = new PostgresMediaRepo(db);
  const total = (await source.media.list({ offset: 0, limit: 0 })).total;
  const PAGE = 500;
  for (let end = total; end > 0; end -= PAGE) {
    const start = Math.max(0, end - PAGE);
    const page = await source.media.list({ offset: start, limit: end - start });
    for (const record of page.data.reverse()) {
      await media.create(record);
      counts.media += 1;
    }
  }
  progress('media', counts.media);

  const responses = new PostgresResponsesRepo(db);
  for await (const record of source.responses.each()) {
    await responses.save(record);
    counts.responses += 1;
  }
  progress('responses', counts.responses);

  const conversations = new PostgresConversationsRepo(db);
  for await (const { record, items } of source.conversations.each()) {
    await conversations.copy(client, record, items);
    counts.conversations += 1;
  }
  progress('conversations', counts.conversations);

  const files = new PostgresFilesRepo(db);
  for (const record of [...data.files]) {
    const content = await source.files.content(record.accountId, record.id);
    if (!content) throw new CopyError(`file ${record.id} has a record but no contents in the data dir (files/${record.id})`);
    await files.create(record, content);
    counts.files += 1;
    counts.fileBytes += content.byteLength;
  }
  // The ids of deleted files, so a conversation naming one is still answered by the gateway (FilesRepo.wasDeleted).
  for (const deleted of data.deletedFiles ?? []) {
    await client.query('insert into gw_deleted_files (account_id, id) values ($1, $2) on conflict do nothing', [deleted.accountId, deleted.id]);
  }
  progress('files', counts.files);

  const batches = new PostgresBatchesRepo(db);
  for (const record of [...data.batches]) {
    await batches.create({ ...record, lease: null });
    counts.batches += 1;
    for (const line of await source.batches.lines(record.id)) {
      await batches.saveLine(line);
      counts.batchLines += 1;
    }
  }
  progress('batches', counts.batches);
  return counts;
}

/** A usage-ledger line as the data dir holds it (usage.jsonl; the same field names as gw_ledger's columns), read without trusting `seq` or `media`. */
export type LedgerLine = Omit<LedgerRecord, 'seq' | 'media'> & { seq?: number; media?: Record<string, unknown> };

/** Entries and charged credits of a database's usage ledger; null when it has no ledger table. */
export async function countPostgresLedger(db: Queryable): Promise<{ entries: number; charged: number } | null> {
  const { rows } = await db.query<{ present: boolean }>(`select to_regclass('gw_ledger') is not null as present`);
  if (!rows[0].present) return null;
  const sums = await db.query<{ n: number; charged: number }>('select count(*)::int as n, coalesce(sum(charged_credits), 0) as charged from gw_ledger');
  return { entries: sums.rows[0].n, charged: roundMicro(Number(sums.rows[0].charged)) };
}

/** A line's latency as the integer column takes it: whole ms, 0 up to 2^31 - 1, or none. */
function latencyMs(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(2 ** 31 - 1, Math.max(0, Math.round(n))) : undefined;
}

const LEDGER_COLUMNS =
  'request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media, web_search_requests, answer_id, finish_reason, streamed, latency_ms';
const LEDGER_SELECT = `request_id, ts, account_id, coalesce(key_id, ''), coalesce(model, ''), coalesce(provider, ''), coalesce(endpoint, ''),
  coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(reasoning_tokens, 0), coalesce(cached_tokens, 0),
  coalesce(cost_credits, 0), coalesce(charged_credits, 0), coalesce(estimated, false), coalesce(aborted, false), discount, price_multiplier, media, web_search_requests,
  answer_id, finish_reason, streamed, latency_ms`;

/**
 * Copies usage-ledger lines, oldest first, into gw_ledger as history: the balances already
 * include them (copied as they are), so no line is settled again. A line whose request id is
 * empty or was seen before gets `jsonl-<seq>` (the table is keyed by request id). Then the
 * spend aggregates are rebuilt from the ledger when the schema has the function for it.
 * Returns the entries and the charged credits copied.
 */
export async function copyLedger(client: Queryable, lines: readonly LedgerLine[]): Promise<{ entries: number; charged: number }> {
  const seen = new Set<string>();
  let charged = 0;
  const CHUNK = 2_000;
  for (let start = 0; start < lines.length; start += CHUNK) {
    const rows = lines.slice(start, start + CHUNK).map((line, i) => {
      let requestId = typeof line.request_id === 'string' ? line.request_id : '';
      if (!requestId || seen.has(requestId)) requestId = `jsonl-${line.seq ?? start + i + 1}`;
      while (seen.has(requestId)) requestId += '-';
      seen.add(requestId);
      charged += Number.isFinite(line.charged_credits) ? line.charged_credits : 0;
      // A count the integer column refuses (1.5, -1, 1e12) would fail the whole chunk: whole and bounded, or none (a latency too; a streamed flag a boolean).
      return { ...line, request_id: requestId, web_search_requests: searchCount(line.web_search_requests), streamed: line.streamed === true || undefined, latency_ms: latencyMs(line.latency_ms) };
    });
    await client.query(`insert into gw_ledger (${LEDGER_COLUMNS}) select ${LEDGER_SELECT} from json_populate_recordset(null::gw_ledger, $1::json)`, [JSON.stringify(rows)]);
  }
  const { rows } = await client.query<{ present: boolean }>(`select to_regproc('gw_rebuild_spend') is not null as present`);
  if (rows[0].present) await client.query('select gw_rebuild_spend()');
  return { entries: lines.length, charged: roundMicro(charged) };
}
