import { newBatchRecord } from '../../batches/index.ts';
import type { AuthContext } from '../../accounts/index.ts';
import type { BatchRecord, FileRecord } from '../../store/index.ts';
import { newId } from '../../util/index.ts';
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

/** The account's batches made on `face` and not deleted there, newest first (a batch store page holds any kind of batch). */
export async function faceBatchesOf(deps: ServerDeps, accountId: string, face: FaceBatch['face']): Promise<BatchRecord[]> {
  const all: BatchRecord[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await deps.store.batches.list({ accountId, limit: 100, ...(cursor ? { after: cursor } : {}) });
    for (const b of page.data) if (b.face === face && !b.deletedAt) all.push(b);
    if (!page.hasMore || page.data.length === 0) break;
    cursor = page.data.at(-1)!.id;
  }
  return all;
}

/**
 * A batch file's lines, parsed (an input, output or error file of a face's batch); none when the
 * file is gone. Read a line at a time from the bytes: a large batch's output can be more than one
 * JavaScript string holds (2^29 characters).
 */
export async function jsonLinesOf(deps: ServerDeps, accountId: string, fileId: string): Promise<Array<Record<string, unknown>>> {
  const content = await deps.store.files.content(accountId, fileId);
  if (!content) return [];
  const lines: Array<Record<string, unknown>> = [];
  for (let start = 0; start < content.length; ) {
    const newline = content.indexOf(10, start);
    const end = newline < 0 ? content.length : newline;
    const text = content.toString('utf8', start, end);
    if (text.trim() !== '') lines.push(JSON.parse(text) as Record<string, unknown>);
    start = end + 1;
  }
  return lines;
}
