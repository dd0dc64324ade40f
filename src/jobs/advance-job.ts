import { mapMediaError } from '../media/index.ts';
import type { JobStatus } from '../plugin-kit/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { unixSeconds } from '../util/index.ts';
import { jobModel } from './job-model.ts';
import { readJobContent } from './read-job-content.ts';
import { updateJob, type JobContext } from './job-context.ts';
import { libraryStatus, readJob, type JobState, type JobStatusName } from './job-state.ts';
import { contentUrl } from './view-job.ts';

/** Ends a job in a final status (nothing else changes upstream after). */
export function endJob(ctx: JobContext, id: string, status: JobStatusName, error: { code: string; message: string } | null, extra: Partial<MediaRecord> = {}): Promise<MediaRecord | undefined> {
  const now = unixSeconds(ctx.clock.now());
  return updateJob(ctx, id, (job) => ({
    job: { ...job, status, error, completedAt: now, progress: status === 'completed' ? 100 : job.progress },
    patch: { status: libraryStatus(status), completed_at: now, error: error?.message ?? null, ...extra },
  }));
}

/**
 * One step of a job that is not final yet: a submit a crash interrupted ends failed (the
 * provider may or may not have it: nothing is billed); a cancel asked for is sent; a job past
 * its deadline expires; otherwise the provider is polled and its answer recorded.
 */
export async function advanceJob(ctx: JobContext, record: MediaRecord, job: JobState, signal: AbortSignal): Promise<void> {
  if (ctx.submitting.has(record.id)) return; // this process is still waiting for the provider's answer
  const model = jobModel(ctx, job);
  if (!job.ref) {
    if (job.submitting) await endJob(ctx, record.id, 'failed', { code: 'submit_interrupted', message: 'The gateway stopped while submitting this job; it was not run.' });
    return;
  }
  if (!model) {
    await endJob(ctx, record.id, 'failed', { code: 'provider_unavailable', message: `The provider '${job.provider}' is no longer configured.` });
    return;
  }
  const jobs = model.provider.instance.jobs!;
  if (job.cancelRequested) {
    await jobs.cancel?.(job.ref, signal).catch((error: unknown) => ctx.log.warn('media job: the provider refused the cancel', { job: record.id, error: String(error) }));
    await endJob(ctx, record.id, 'cancelled', null);
    return;
  }
  if (unixSeconds(ctx.clock.now()) >= job.deadline) {
    await jobs.cancel?.(job.ref, signal).catch(() => undefined);
    await endJob(ctx, record.id, 'expired', { code: 'expired', message: 'The job did not finish in time.' });
    return;
  }
  let status: JobStatus;
  try {
    status = await jobs.poll(job.ref, signal);
  } catch (thrown) {
    throw mapMediaError(model, thrown, signal);
  }
  await recordStatus(ctx, record, status, signal);
}

async function recordStatus(ctx: JobContext, record: MediaRecord, status: JobStatus, signal: AbortSignal): Promise<void> {
  const progress = Math.max(0, Math.min(100, Math.round(status.progress ?? 0)));
  const keep = (job: JobState): JobState => ({ ...job, ref: status.state && job.ref ? { id: job.ref.id, state: status.state } : job.ref });
  if (status.phase === 'queued' || status.phase === 'running') {
    const next: JobStatusName = status.phase === 'queued' ? 'queued' : 'in_progress';
    await updateJob(ctx, record.id, (job) => (job.status === next && job.progress === progress && !status.state ? undefined : { job: { ...keep(job), status: next, progress }, patch: { status: libraryStatus(next) } }));
    return;
  }
  const providerUsd = status.costUsd;
  if (status.phase !== 'completed') {
    const error = status.error ?? (status.phase === 'failed' ? { code: 'generation_failed', message: 'The provider could not make this.' } : null);
    const changed = await updateJob(ctx, record.id, (job) => ({ job: { ...keep(job), providerUsd: providerUsd ?? null } }));
    if (changed) await endJob(ctx, record.id, status.phase, error);
    return;
  }
  const output = status.output ?? {};
  const variants: Record<string, string> = { video: output.contentType ?? 'application/octet-stream' };
  for (const v of output.variants ?? []) variants[v] = v === 'thumbnail' ? 'image/jpeg' : 'application/octet-stream';
  const stored = await updateJob(ctx, record.id, (job) => ({ job: { ...keep(job), variants, providerUsd: providerUsd ?? null, madeSeconds: output.seconds ?? null } }));
  if (!stored) return;
  // Fetched now into the cache: its size goes in the record, and the first download is local.
  let bytes = output.bytes ?? null;
  try {
    const content = await readJobContent(ctx, stored, 'video', signal);
    bytes = content.data.length;
  } catch (error) {
    ctx.log.warn('media job: fetching the content failed; it is fetched again when asked for', { job: record.id, error: String(error) });
  }
  const job = readJob(stored)!;
  const urls = [contentUrl(stored, job)];
  await endJob(ctx, record.id, 'completed', null, {
    result_urls: urls,
    primary_url: urls[0],
    preview_url: variants.thumbnail ? contentUrl(stored, job, 'thumbnail') : null,
    file_size_bytes: bytes,
    duration_seconds: output.seconds ?? null,
    width: output.width ?? null,
    height: output.height ?? null,
  });
}
