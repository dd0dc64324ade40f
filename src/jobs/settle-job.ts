import type { Admission, AdmissionRequest } from '../accounts/index.ts';
import type { MediaUnits } from '../billing/index.ts';
import { viewMedia } from '../media/index.ts';
import type { Settlement } from '../pipeline/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { jobModel } from './job-model.ts';
import { jobAuth, updateJob, type JobContext } from './job-context.ts';
import { jobRequestId, type JobState } from './job-state.ts';
import { signWebhook, webhookBackoffMs } from './sign-webhook.ts';
import { postWebhook } from './webhook-address.ts';
import { viewVideo } from './view-job.ts';

/** What a final job is charged for: what it made (the provider's seconds, one job), or what the provider says it charged; null = nothing. */
function unitsOf(record: MediaRecord, job: JobState): MediaUnits | null {
  if (job.providerUsd !== undefined && job.providerUsd !== null) return { providerUsd: job.providerUsd, jobs: 1 };
  if (job.status !== 'completed') return null;
  const seconds = (job.madeSeconds === undefined ? record.duration_seconds : job.madeSeconds) ?? job.seconds ?? 0;
  return record.media_type === 'threed' ? { jobs: 1 } : { mediaSeconds: seconds, jobs: 1 };
}

/**
 * Settles a final job exactly once: the hold made at submit is charged what the job made (or
 * released when it failed, was cancelled or expired, unless the provider charged). A job resumed
 * after a restart has no hold in memory: the usage ledger says whether its charge was already
 * written (then nothing happens again), else it is admitted again and settled. The work is done
 * and the provider bills it, so a refused re-admission (the key's scope narrowed, the balance
 * gone while the gateway was down) still charges it, as a charge beyond its hold would be.
 */
export async function billJob(ctx: JobContext, record: MediaRecord, job: JobState): Promise<void> {
  const requestId = jobRequestId(record.id);
  const units = unitsOf(record, job);
  const model = jobModel(ctx, job);
  let admission: Admission | undefined = ctx.holds.get(record.id);
  ctx.holds.delete(record.id);
  const settlement: Settlement & { media: MediaUnits } | null =
    units && model ? { model, usage: { inputTokens: 0, outputTokens: 0 }, estimated: false, aborted: false, responseId: requestId, media: units } : null;
  let cost = 0;
  if (!admission && settlement && model) {
    const billed = await ctx.guards.billedRequests?.(requestId);
    if (billed?.has(requestId)) {
      await updateJob(ctx, record.id, (j) => ({ job: { ...j, billed: true } }));
      return;
    }
    const auth = await jobAuth(ctx.store, record.accountId, job.keyId);
    if (auth) {
      const request: AdmissionRequest = { auth, method: 'POST', route: job.door === 'video' ? '/v1/videos' : '/v1/media/generations', clientAddress: 'job', untilBilled: true, resumed: true, model: model.id, servedBy: [model], media: {}, requestId };
      try {
        admission = await ctx.guards.admit(request);
      } catch (error) {
        if (!ctx.guards.chargeDone) throw error;
        ctx.log.warn('media job: admitting a resumed job again for its charge was refused; it is charged all the same', { job: record.id, error: String(error) });
        cost = (await ctx.guards.chargeDone(request, settlement))?.cost ?? 0;
      }
    }
  }
  if (admission) {
    const charge = await admission.settle(settlement);
    cost = charge?.cost ?? 0;
  }
  await updateJob(ctx, record.id, (j) => ({ job: { ...j, billed: true }, patch: { cost_credits: cost } }));
}

/** The webhook body: `{id, type, created_at, data}`, data being the video object or the library record. */
function webhookBody(record: MediaRecord, job: JobState, at: number): string {
  const data = job.door === 'video' ? viewVideo(record, job) : viewMedia(record);
  return JSON.stringify({ id: `evt_${record.id}`, object: 'event', type: `${job.door}.${job.status}`, created_at: at, data });
}

/**
 * One delivery attempt of a final job's webhook, when it is due: 'done' once delivered or out
 * of attempts, 'later' with the time of the next attempt. The `webhook-id` is the same on every
 * attempt: a receiver that saw it (a crash between its answer and our record) drops the repeat.
 */
export async function deliverJobWebhook(ctx: JobContext, record: MediaRecord, job: JobState): Promise<{ done: boolean; nextAt?: number }> {
  const hook = job.webhook;
  if (!job.callbackUrl || !hook || hook.delivered) return { done: true };
  const now = ctx.clock.now();
  if (hook.nextAt > now) return { done: false, nextAt: hook.nextAt };
  const at = new Date(now);
  const body = webhookBody(record, job, Math.floor(now / 1000));
  const ok = await postWebhook(job.callbackUrl, signWebhook(ctx.webhookSecret(record.accountId), `msg_${record.id}`, at, body), body, 10_000, ctx.config.webhookPrivateAddresses);
  const attempts = hook.attempts + 1;
  const exhausted = !ok && attempts >= ctx.config.webhookAttempts;
  if (exhausted) ctx.log.warn('media job: webhook not delivered; giving up', { job: record.id, attempts });
  const nextAt = ctx.clock.now() + webhookBackoffMs(attempts);
  await updateJob(ctx, record.id, (j) => ({ job: { ...j, webhook: { delivered: ok, attempts, nextAt: ok || exhausted ? 0 : nextAt } } }));
  return ok || exhausted ? { done: true } : { done: false, nextAt };
}
