import { newBatchRecord, refuseOverOpenBatches } from '../../batches/index.ts';
import type { AuthContext } from '../../accounts/index.ts';
import type { BatchRecord, FileRecord, Page } from '../../store/index.ts';
import { newId, splitLines } from '../../util/index.ts';
import type { ServerDeps } from '../types.ts';
import { newFileId, quotaExceeded } from './files.ts';

/** A batch made on a provider's own batch face (Anthropic's Message Batches, Gemini's Batch API). */
export interface FaceBatch {
  face: NonNullable<BatchRecord['face']>;
  /** The endpoint its lines run on (a registered format's route). */
  endpoint: string;
  /** The batch input file's lines, each `{custom_id, method, url, body, …}` as JSON text. */
  lines: string[];
  model?: string;
  displayName?: string;
  /** A Gemini batch's uploaded input file (`files/…`), when its requests came from one. */
  inputFile?: string;
}

/**
 * Writes a face's requests as a batch input file (in the account's file quota) and a batch on it,
 * `validating` until the executor checks and runs it like any batch made on /v1/batches.
 */
export async function createFaceBatch(deps: ServerDeps, auth: AuthContext, batch: FaceBatch): Promise<BatchRecord> {
  await refuseOverOpenBatches(deps.store, auth.account.id, deps.config.batches.maxOpenPerAccount);
  const jsonl = Buffer.from(`${batch.lines.join('\n')}\n`);
  const quota = deps.config.storage.fileQuotaBytes;
  const used = await deps.store.files.bytesOf(auth.account.id);
  if (used + jsonl.length > quota) throw quotaExceeded(quota, used, `this batch needs ${jsonl.length}`);
  const now = Math.floor(deps.clock.now() / 1000);
  const id = newId('batch');
  const file: FileRecord = { id: newFileId(), accountId: auth.account.id, bytes: jsonl.length, created_at: now, expires_at: null, filename: `${id}_requests.jsonl`, purpose: 'batch' };
  await deps.store.files.create(file, jsonl);
  const record = newBatchRecord({
    id,
    accountId: auth.account.id,
    keyId: auth.key.id,
    endpoint: batch.endpoint,
    input_file_id: file.id,
    completion_window: '24h',
    created_at: now,
    windowSeconds: 86_400,
    metadata: null,
    total: batch.lines.length,
    face: batch.face,
    ...(batch.model !== undefined ? { model: batch.model } : {}),
    ...(batch.displayName !== undefined ? { displayName: batch.displayName } : {}),
    ...(batch.inputFile !== undefined ? { inputFile: batch.inputFile } : {}),
  });
  await deps.store.batches.create(record);
  deps.batches?.wake();
  return record;
}

/**
 * One page of a face's batches (made there, not deleted there), newest first, read from the store
 * a page at a time: `after` the page after that id, `before` the page just before (newer than) it;
 * both: from `after`, up to `before`.
 */
export async function faceBatchPage(deps: ServerDeps, accountId: string, face: FaceBatch['face'], page: { limit: number; after?: string; before?: string }): Promise<Page<BatchRecord>> {
  const { limit, after, before } = page;
  if (before !== undefined && after === undefined) {
    const newer = await deps.store.batches.list({ accountId, face, limit, after: before, order: 'asc' });
    return { data: newer.data.reverse(), hasMore: newer.hasMore };
  }
  const older = await deps.store.batches.list({ accountId, face, limit, ...(after !== undefined ? { after } : {}) });
  const stop = before === undefined ? -1 : older.data.findIndex((b) => b.id === before);
  return stop < 0 ? older : { data: older.data.slice(0, stop), hasMore: false };
}

/**
 * A batch file's lines, parsed (an input, output or error file of a face's batch); none when the
 * file is gone. Read a line at a time from the bytes: a large batch's output can be more than one
 * JavaScript string holds (2^29 characters).
 */
export async function jsonLinesOf(deps: ServerDeps, accountId: string, fileId: string): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for await (const line of eachJsonLine(deps, accountId, fileId)) lines.push(line);
  return lines;
}

/** A batch file's lines, parsed one at a time as the file is read (memory bounded by its longest line); none when the file is gone. */
export async function* eachJsonLine(deps: ServerDeps, accountId: string, fileId: string): AsyncGenerator<Record<string, unknown>> {
  const chunks = await deps.store.files.contentChunks(accountId, fileId);
  if (!chunks) return;
  for await (const line of splitLines(chunks)) {
    const text = line.toString('utf8');
    if (text.trim() !== '') yield JSON.parse(text) as Record<string, unknown>;
  }
}
