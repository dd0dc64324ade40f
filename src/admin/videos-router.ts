import { z } from 'zod';
import { GatewayError } from '../errors/index.ts';
import { FINAL_STATUSES, JOB_STATUSES, readJob, recordIdOf, refuseUnstoppable, updateJob, viewVideo, type VideoView } from '../jobs/index.ts';
import { oldestAlive } from '../media/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { createTurns } from '../util/index.ts';
import { findAccount } from './accounts.ts';
import { procedure, router, type AdminContext } from './trpc.ts';

/** A video job as operators see it: the video object plus the owning account and the provider. */
export interface AdminVideoView extends VideoView {
  account: string;
  provider: string;
  /** The upstream's id for the model; `model` is the gateway's (`provider/model`), as the Media Library names it. */
  upstream_model: string;
  /** The record id in the Media Library (`gateway media show`). */
  generation_id: string;
}

async function views(ctx: AdminContext, records: MediaRecord[]): Promise<AdminVideoView[]> {
  const emails = new Map((await ctx.store.accounts.list()).map((a) => [a.id, a.email]));
  return records.flatMap((r) => {
    const job = readJob(r);
    // The video object says the upstream's id (what OpenAI's answer says); an operator reads the model asked for, as `media show` does.
    return job ? [{ ...viewVideo(r, job), model: job.modelId, upstream_model: job.upstreamModel, account: emails.get(r.accountId) ?? r.accountId, provider: job.provider, generation_id: r.id }] : [];
  });
}

/** A live video job by its `video_…` id (or its record id), any account. */
async function findVideo(ctx: AdminContext, id: string): Promise<MediaRecord> {
  const record = await ctx.store.media.get(recordIdOf(id) ?? id);
  if (!record || record.media_type !== 'video' || !readJob(record) || record.created_at < oldestAlive(ctx.clock.now())) throw new GatewayError('not_found', `No video with id '${id}'.`);
  return record;
}

/** Video jobs for operators (`gateway videos …`): every account, or one by email. */
export const videosRouter = router({
  list: procedure
    .input(z.object({ account: z.string().min(1).optional(), status: z.enum(JOB_STATUSES).optional(), limit: z.number().int().min(1).max(1000).default(20) }))
    .query(async ({ ctx, input }) => {
      const accountId = input.account ? (await findAccount(ctx.store, input.account)).id : undefined;
      const { data } = await ctx.store.media.list({ accountId, mediaType: 'video', notBefore: oldestAlive(ctx.clock.now()), offset: 0, limit: 1000 });
      const all = (await views(ctx, data)).filter((v) => !input.status || v.status === input.status);
      return { data: all.slice(0, input.limit), total: all.length };
    }),
  get: procedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => (await views(ctx, [await findVideo(ctx, input.id)]))[0]),
  /** Asks for the job's end: the instance running it sends the provider's cancel and ends it `cancelled`. */
  cancel: procedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const record = await findVideo(ctx, input.id);
    const job = readJob(record);
    if (job && !FINAL_STATUSES.has(job.status)) refuseUnstoppable({ registry: await ctx.registry() }, job, 'there is nothing to cancel');
    // A server's job runner may be changing the record: take its turn. A CLI holding the data dir runs no job.
    const jobs = ctx.jobs ?? { store: ctx.store, recordTurns: createTurns() };
    const stored = (await updateJob(jobs, record.id, (job) => (FINAL_STATUSES.has(job.status) ? undefined : { job: { ...job, cancelRequested: true } }))) ?? record;
    await ctx.store.flush();
    return (await views(ctx, [stored]))[0];
  }),
});
