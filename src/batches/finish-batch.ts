import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Store } from '../store/index.ts';
import type { BatchLineRecord, BatchRecord, FileRecord } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import { newId } from '../util/index.ts';

export interface FinishBatchDeps {
  store: Store;
  clock: Clock;
}

/** The end a batch is moved to, with the input lines never run (expiry reports them as `batch_expired`). */
export type BatchEnd = { status: 'completed' } | { status: 'cancelled' } | { status: 'expired'; unrun: ReadonlyArray<{ customId: string }> };

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The request id a batch line is admitted, billed and answered under: `<batch id>:<1-based line number>`. */
export function lineRequestId(batchId: string, index: number): string {
  return `${batchId}:${index + 1}`;
}

/**
 * The ids of a batch's output and error files, derived from the batch id: a finish cut short
 * by a crash (files written, the batch record not yet) and done again replaces the same two
 * files instead of leaving the first ones behind.
 */
export function resultFileIds(batchId: string): { output: string; error: string } {
  const stem = batchId.replace(/^batch_/, '');
  return { output: `file-${stem}-output`, error: `file-${stem}-errors` };
}

/** Finished lines counted: `total` from the input, `failed` including the lines never run. */
export function countLines(lines: readonly BatchLineRecord[], total: number, unrun = 0): { total: number; completed: number; failed: number } {
  let completed = 0;
  for (const l of lines) if (l.outcome === 'completed') completed += 1;
  return { total, completed, failed: lines.length - completed + unrun };
}

/**
 * Writes the output and error files from the batch's saved lines and moves it to `end`
 * (dropping its lease and then its per-line progress). Safe to run again after a crash at
 * any point: the files are replaced, and the progress goes only after the record says where
 * the files are.
 */
export async function finishBatch(deps: FinishBatchDeps, batch: BatchRecord, end: BatchEnd, total = batch.request_counts.total): Promise<BatchRecord> {
  const { store, clock } = deps;
  const finished = await store.batches.lines(batch.id);
  const unrun = end.status === 'expired' ? end.unrun : [];
  const errorLines = finished.filter((l) => l.outcome === 'failed').map((l) => l.result);
  for (const line of unrun) {
    errorLines.push(JSON.stringify({ id: `batch_req_${newId('x', 16).slice(2)}`, custom_id: line.customId, response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } }));
  }
  const outputLines = finished.filter((l) => l.outcome === 'completed').map((l) => l.result);
  const ids = resultFileIds(batch.id);
  const output_file_id = outputLines.length > 0 ? await writeFile(deps, batch, ids.output, `${batch.id}_output.jsonl`, outputLines) : batch.output_file_id;
  const error_file_id = errorLines.length > 0 ? await writeFile(deps, batch, ids.error, `${batch.id}_error.jsonl`, errorLines) : batch.error_file_id;
  const now = seconds(clock.now());
  const at = end.status === 'cancelled' ? { cancelled_at: now } : end.status === 'expired' ? { expired_at: now } : { completed_at: now };
  const done = await store.batches.update(batch.id, { status: end.status, ...at, output_file_id, error_file_id, request_counts: countLines(finished, total, unrun.length), lease: null });
  await store.batches.deleteLines(batch.id);
  return done ?? batch;
}

/**
 * Writes the lines to a staged file a line at a time, then stores it (moved or streamed by the
 * store): the output of a large batch (50,000 long answers) can be more than one JavaScript
 * string holds (2^29 characters), which a join into one text would throw at every finish.
 */
async function writeFile(deps: FinishBatchDeps, batch: BatchRecord, id: string, filename: string, lines: string[]): Promise<string> {
  const staged = path.join(os.tmpdir(), `gateway-${id}-${randomBytes(6).toString('hex')}.jsonl`);
  let bytes = 0;
  try {
    const out = fs.createWriteStream(staged, { mode: 0o600 });
    const closed = finished(out);
    closed.catch(() => undefined); // awaited below; a write error meanwhile is not an unhandled rejection
    for (const line of lines) {
      const text = `${line}\n`;
      bytes += Buffer.byteLength(text);
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await closed;
  } catch (error) {
    await fs.promises.rm(staged, { force: true });
    throw error;
  }
  const record: FileRecord = { id, accountId: batch.accountId, bytes, created_at: seconds(deps.clock.now()), expires_at: null, filename, purpose: 'batch_output' };
  // Left by an earlier finish that a crash cut short.
  await deps.store.files.delete(batch.accountId, id);
  await deps.store.files.createFromFile(record, staged);
  return id;
}
