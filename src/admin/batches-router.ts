import { z } from 'zod';
import { cancelBatch, viewBatch } from '../batches/index.ts';
import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';
import type { BatchRecord, BatchStatus } from '../store/index.ts';
import { findAccount } from './accounts.ts';
import { procedure, router } from './trpc.ts';

export const BATCH_STATUSES = ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'] as const satisfies readonly BatchStatus[];

/** A batch as operators see it: OpenAI's batch object plus the owning account. */
export type AdminBatchView = ReturnType<typeof viewBatch> & { account: string };

async function withAccount(store: Store, records: BatchRecord[]): Promise<AdminBatchView[]> {
  const emails = new Map((await store.accounts.list()).map((a) => [a.id, a.email]));
  return records.map((r) => ({ ...viewBatch(r), account: emails.get(r.accountId) ?? r.accountId }));
}

async function batchOf(store: Store, id: string): Promise<BatchRecord> {
  const record = await store.batches.get(id);
  if (!record) throw new GatewayError('not_found', `No batch with id '${id}'.`);
  return record;
}

/** Batch procedures for operators (`gateway batches …`, the TUI's Batches tab): every account, or one by email. */
export const batchesRouter = router({
  list: procedure
    .input(z.object({ account: z.string().min(1).optional(), status: z.array(z.enum(BATCH_STATUSES)).optional(), limit: z.number().int().min(1).max(1000).default(100), after: z.string().optional() }))
    .query(async ({ ctx, input }) => {
      const accountId = input.account ? (await findAccount(ctx.store, input.account)).id : undefined;
      const page = await ctx.store.batches.list({ accountId, status: input.status, limit: input.limit, after: input.after });
      return { data: await withAccount(ctx.store, page.data), has_more: page.hasMore };
    }),
  get: procedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => {
    const [view] = await withAccount(ctx.store, [await batchOf(ctx.store, input.id)]);
    return view;
  }),
  cancel: procedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const next = await cancelBatch(ctx, await batchOf(ctx.store, input.id));
    await ctx.store.flush();
    const [view] = await withAccount(ctx.store, [next]);
    return view;
  }),
});
