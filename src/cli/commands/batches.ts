import type { Command } from 'commander';
import type { AdminBatchView } from '../../admin/index.ts';
import { createClock } from '../../util/index.ts';
import { withAdmin } from '../admin-client.ts';
import { missingDataDirNote, resolveContext } from '../context.ts';
import { formatFields, print, printJson, printTable } from '../format-table.ts';
import { formatAge } from './media.ts';

const ENDED = new Set(['failed', 'completed', 'expired', 'cancelled']);

/** `12/3/100` and a bar of `width` cells. */
export function progressLine(b: Pick<AdminBatchView, 'status' | 'request_counts'>, rate?: number, width = 30): string {
  const { total, completed, failed } = b.request_counts;
  const done = completed + failed;
  const filled = total > 0 ? Math.round((done / total) * width) : ENDED.has(b.status) ? width : 0;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  let line = `${bar} ${completed} completed, ${failed} failed, ${total} total  ${b.status}`;
  if (rate !== undefined && rate > 0 && !ENDED.has(b.status)) line += `  ${rate.toFixed(1)} lines/s, ETA ${Math.ceil((total - done) / rate)}s`;
  return line;
}

export async function listBatchesCommand(cmd: Command, opts: { account?: string; status?: string[]; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const page = await withAdmin(ctx, (admin) => admin.batches.list.query({ account: opts.account, status: opts.status as never, limit: 100 }), { readOnly: true });
  if (opts.json) return printJson(page);
  if (page.data.length === 0) return print(`No batches${missingDataDirNote(ctx)}.`);
  const now = createClock().now();
  printTable(
    ['ID', 'STATUS', 'ENDPOINT', 'DONE', 'FAILED', 'TOTAL', 'AGE', 'ACCOUNT'],
    page.data.map((b) => [b.id, b.status, b.endpoint, String(b.request_counts.completed), String(b.request_counts.failed), String(b.request_counts.total), formatAge(b.created_at, now), b.account]),
    // On a terminal: the endpoint and account cut, then the account and age left out; the id stays whole.
    { shrink: ['ENDPOINT', 'ACCOUNT'], drop: ['ACCOUNT', 'AGE'] },
  );
}

/** A batch id as the gateway keeps it: Gemini's name for it (`batches/batch_…`, what `@google/genai` prints as a job's name) is the same batch. */
export function batchIdOf(given: string): string {
  return given.startsWith('batches/') ? given.slice('batches/'.length) : given;
}

export async function showBatchCommand(cmd: Command, given: string, opts: { watch?: boolean; json?: boolean }): Promise<void> {
  const id = batchIdOf(given);
  const ctx = await resolveContext(cmd);
  if (!opts.watch) {
    const batch = await withAdmin(ctx, (admin) => admin.batches.get.query({ id }), { readOnly: true });
    if (opts.json) return printJson(batch);
    print(formatFields(batch));
    return;
  }
  const started = Date.now();
  let first: number | undefined;
  for (;;) {
    const batch = await withAdmin(ctx, (admin) => admin.batches.get.query({ id }), { readOnly: true });
    const done = batch.request_counts.completed + batch.request_counts.failed;
    first ??= done;
    const elapsed = (Date.now() - started) / 1000;
    const rate = elapsed > 0 ? (done - first) / elapsed : undefined;
    const line = opts.json ? JSON.stringify({ id: batch.id, status: batch.status, request_counts: batch.request_counts }) : progressLine(batch, rate);
    if (process.stdout.isTTY && !opts.json) process.stdout.write(`\r${line}\x1b[K`);
    else print(line);
    if (ENDED.has(batch.status)) {
      if (process.stdout.isTTY && !opts.json) process.stdout.write('\n');
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export async function cancelBatchCommand(cmd: Command, given: string, opts: { json?: boolean }): Promise<void> {
  const id = batchIdOf(given);
  const ctx = await resolveContext(cmd);
  const batch = await withAdmin(ctx, (admin) => admin.batches.cancel.mutate({ id }), { existing: true });
  if (opts.json) return printJson(batch);
  print(`Batch ${batch.id} is ${batch.status}.`);
}
