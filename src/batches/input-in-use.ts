import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';

/** A batch in one of these has not ended: it holds its input file and waits for (or takes) the executor's time. */
export const UNFINISHED = ['validating', 'in_progress', 'finalizing', 'cancelling'] as const;

/**
 * Refuses (409) to delete a file that an unfinished batch of the account reads its lines from:
 * a resumed batch (a restart, another instance taking its lease) reads them again from it, and
 * with the file gone it would end `completed` with its unrun lines silently dropped.
 */
export async function refuseDeletingBatchInput(store: Store, accountId: string, fileId: string): Promise<void> {
  for (let after: string | undefined; ; ) {
    const page = await store.batches.list({ accountId, status: UNFINISHED, limit: 100, ...(after ? { after } : {}) });
    const batch = page.data.find((b) => b.input_file_id === fileId);
    if (batch) {
      throw new GatewayError('conflict', `The file '${fileId}' is the input of batch ${batch.id}, which is ${batch.status}; delete it once the batch has ended (or cancel the batch).`);
    }
    if (!page.hasMore || page.data.length === 0) return;
    after = page.data.at(-1)!.id;
  }
}

/**
 * Refuses (429 quota_exceeded) a new batch of an account that has `max` batches not ended yet
 * (`batches.maxOpenPerAccount`): the batch routes are exempt from rate limits and a batch may be
 * made again and again on one input file, so without it one account could queue any number of
 * batches (each a record every look for work reads, and a result file when it ends).
 */
export async function refuseOverOpenBatches(store: Store, accountId: string, max: number): Promise<void> {
  const open = await store.batches.list({ accountId, status: UNFINISHED, limit: max });
  if (open.data.length < max) return;
  throw new GatewayError('quota_exceeded', `At most ${max} batches of an account may be unfinished at once (batches.maxOpenPerAccount); wait for one to end, or cancel one.`, {
    details: { limit: 'batches.maxOpenPerAccount', max_open_batches: max },
  });
}
