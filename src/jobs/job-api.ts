import { GatewayError } from '../errors/index.ts';
import { oldestAlive } from '../media/index.ts';
import type { JobContext } from './job-context.ts';
import { updateJob } from './job-context.ts';
import { FINAL_STATUSES, readJob, recordIdOf, videoIdOf, type JobRecord, type JobState } from './job-state.ts';
import { jobModel } from './job-model.ts';
import { viewVideo, type VideoView } from './view-job.ts';

function notFound(id: string, what: string): GatewayError {
  return new GatewayError('not_found', `No ${what} with id '${id}'.`);
}

/**
 * A live job record of the caller, by record id: missing, expired, client-driven and other
 * accounts' records are all the same 404, so ids of other accounts cannot be probed.
 */
export async function ownJob(ctx: JobContext, recordId: string | undefined, accountId: string, shownId: string, what = 'video'): Promise<JobRecord> {
  const record = recordId ? await ctx.store.media.get(recordId) : undefined;
  const job = record ? readJob(record) : undefined;
  if (!record || !job || record.accountId !== accountId || record.created_at < oldestAlive(ctx.clock.now())) throw notFound(shownId, what);
  return { record, job };
}

/** A `/v1/videos` id's job of the caller. */
export function ownVideo(ctx: JobContext, videoId: string, accountId: string): Promise<JobRecord> {
  return ownJob(ctx, recordIdOf(videoId), accountId, videoId);
}

/** `GET /v1/videos`: the caller's video jobs, newest first (or oldest with `order: asc`), after a cursor. */
export async function listVideos(ctx: JobContext, accountId: string, query: { limit: number; after?: string; order: 'asc' | 'desc' }): Promise<{ object: 'list'; data: VideoView[]; first_id: string | null; last_id: string | null; has_more: boolean }> {
  // An account keeps at most 1,000 records (docs/limits.md): one read holds them all.
  const { data } = await ctx.store.media.list({ accountId, mediaType: 'video', notBefore: oldestAlive(ctx.clock.now()), offset: 0, limit: 1000 });
  let views = data.flatMap((record) => {
    const job = readJob(record);
    return job ? [viewVideo(record, job)] : [];
  });
  if (query.order === 'asc') views.reverse();
  if (query.after) {
    const at = views.findIndex((v) => v.id === query.after);
    views = at < 0 ? [] : views.slice(at + 1);
  }
  const page = views.slice(0, query.limit);
  return { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: views.length > page.length };
}

/**
 * 409 for a job that has not ended on a provider with no cancel (Veo: Google runs an operation to
 * its end and bills it). Ending it here would give its hold back and charge nothing for what the
 * provider still makes and charges; it runs on, is charged what it makes, and ends as it ends.
 */
export function refuseUnstoppable(ctx: Pick<JobContext, 'registry'>, job: JobState, then: string): void {
  if (FINAL_STATUSES.has(job.status)) return;
  const model = jobModel(ctx, job);
  if (!model || model.provider.instance.jobs?.cancel) return;
  throw new GatewayError(
    'conflict',
    `The provider '${job.provider}' cannot stop a job once it is submitted, and charges for what it makes: this one is ${job.status}, and is charged when it ends; ${then} once it has ended.`,
  );
}

/** Asks for a job's end: the runner sends the provider's cancel and ends it `cancelled` (a final job stays as it is; 409 where the provider cannot cancel). */
export async function requestCancel(ctx: JobContext, { record, job }: JobRecord, wake: (id: string) => void): Promise<JobRecord> {
  if (FINAL_STATUSES.has(job.status) || job.cancelRequested) return { record, job };
  refuseUnstoppable(ctx, job, 'there is nothing to cancel');
  const stored = await updateJob(ctx, record.id, (j) => (FINAL_STATUSES.has(j.status) ? undefined : { job: { ...j, cancelRequested: true } }));
  wake(record.id);
  const next = stored ? readJob(stored) : undefined;
  return stored && next ? { record: stored, job: next } : { record, job };
}

/**
 * Deletes a job's record and cached content. A job still running is cancelled at the provider
 * first (best effort); its hold is given back by the runner that finds the record gone. One on a
 * provider that cannot cancel is a 409 until it has ended (refuseUnstoppable).
 */
export async function deleteJob(ctx: JobContext, { record, job }: JobRecord): Promise<{ id: string; object: 'video.deleted'; deleted: true }> {
  refuseUnstoppable(ctx, job, 'delete it');
  if (!FINAL_STATUSES.has(job.status) && job.ref) {
    const model = jobModel(ctx, job);
    await model?.provider.instance.jobs?.cancel?.(job.ref, AbortSignal.timeout(10_000)).catch(() => undefined);
  }
  await ctx.store.media.delete(record.id);
  await ctx.cache.remove(record.id);
  return { id: videoIdOf(record.id), object: 'video.deleted', deleted: true };
}
