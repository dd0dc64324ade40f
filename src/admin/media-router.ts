import { z } from 'zod';
import { MEDIA_STATUSES, MEDIA_TYPES, PAGING } from '../media/index.ts';
import { deleteMedia, getMedia, listMediaRecords, purgeExpiredMedia, viewMedia, type MediaView } from '../media/index.ts';
import type { Store } from '../store/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { GatewayError } from '../errors/index.ts';
import { FINAL_STATUSES, readJob } from '../jobs/index.ts';
import { findAccount } from './accounts.ts';
import { procedure, router } from './trpc.ts';

/** A record as operators see it: the §2.1 fields plus the owning account. */
export interface AdminMediaView extends MediaView {
  account: string;
  /** A job the gateway runs for the record: how far it is (0–100), as the provider says. */
  progress?: number;
}

async function withAccount(store: Store, records: MediaRecord[]): Promise<AdminMediaView[]> {
  const emails = new Map((await store.accounts.list()).map((a) => [a.id, a.email]));
  return records.map((r) => {
    const job = readJob(r);
    return { ...viewMedia(r), account: emails.get(r.accountId) ?? r.accountId, ...(job ? { progress: job.progress } : {}) };
  });
}

const listInput = z.object({
  type: z.enum(MEDIA_TYPES).optional(),
  status: z.enum(MEDIA_STATUSES).optional(),
  account: z.string().min(1).optional(),
  page: z.number().int().min(1).default(PAGING.defaultPage),
  pageSize: z.number().int().min(1).max(PAGING.maxPageSize).default(PAGING.defaultPageSize),
});

/** Media Library procedures for operators (`gateway media …`): every account, or one by email. */
export const mediaRouter = router({
  list: procedure.input(listInput).query(async ({ ctx, input }) => {
    const accountId = input.account ? (await findAccount(ctx.store, input.account)).id : undefined;
    const { records, ...counts } = await listMediaRecords(ctx, { accountId, mediaType: input.type, status: input.status, page: input.page, pageSize: input.pageSize });
    return { data: await withAccount(ctx.store, records), ...counts };
  }),
  get: procedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => {
    const [view] = await withAccount(ctx.store, [await getMedia(ctx, input.id)]);
    return view;
  }),
  remove: procedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    // A job not yet run to its end and billed: its runner, finding the record gone, would give its hold back and never charge it.
    const job = readJob(await getMedia(ctx, input.id));
    if (job && (!FINAL_STATUSES.has(job.status) || !job.billed)) {
      throw new GatewayError('conflict', `Media generation ${input.id} is a ${job.door === 'video' ? 'video ' : ''}job that has not ended (${job.status}); removing its record would drop it unbilled. Cancel it (gateway videos cancel) or wait until it ends, then remove it.`);
    }
    await deleteMedia(ctx, input.id);
    await ctx.store.flush();
    return { id: input.id, deleted: true };
  }),
  purge: procedure.mutation(async ({ ctx }) => {
    const removed = await purgeExpiredMedia(ctx);
    if (removed > 0) await ctx.store.flush();
    return { removed };
  }),
});
