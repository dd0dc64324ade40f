import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';

const UNFINISHED = ['validating', 'in_progress', 'finalizing', 'cancelling'] as const;

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
