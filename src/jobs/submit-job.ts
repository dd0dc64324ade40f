import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../accounts/index.ts';
import { GatewayError } from '../errors/index.ts';
import { createWithinLimits, mapMediaError, pendingRecord } from '../media/index.ts';
import type { JobMediaType, JobUpload } from '../plugin-kit/index.ts';
import type { CatalogModel, ProviderRegistry } from '../providers/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { unixSeconds } from '../util/index.ts';
import { updateJob, type JobContext } from './job-context.ts';
import { FINAL_STATUSES, jobRequestId, readJob, type JobState } from './job-state.ts';
import { checkWebhookUrl } from './webhook-address.ts';

/** What a route hands over to start a job. */
export interface JobSubmission {
  door: JobState['door'];
  auth: AuthContext;
  /** Null for a dashboard session (billed to the account). */
  keyId: string | null;
  mediaType: JobMediaType;
  model: CatalogModel;
  prompt: string;
  seconds?: number;
  size?: string;
  inputReference?: JobUpload;
  /** Passed to the provider as given. */
  extra: Record<string, unknown>;
  /** Stored with the record (known, bounded values only). */
  parameters: Record<string, unknown>;
  callbackUrl?: string;
  /** The origin of the gateway's own content URLs. */
  origin: string;
  clientAddress: string;
}

const TYPE_OF: Record<JobMediaType, string> = { video: 'video_generation', music: 'music_generation', threed: 'threed_generation' };

/** The first model `requested` names that a provider runs jobs of `mediaType` for; undefined: none (the library keeps client-driven records). */
export function jobModelFor(registry: ProviderRegistry, requested: string, mediaType: JobMediaType): CatalogModel | undefined {
  let candidates: readonly CatalogModel[];
  try {
    candidates = registry.resolve(requested).candidates;
  } catch {
    return undefined;
  }
  return candidates.find((m) => m.spec.type === TYPE_OF[mediaType] && m.provider.instance.jobs?.mediaTypes.includes(mediaType));
}

/** Records read at once when counting an account's jobs (its library holds at most 1,000 live ones). */
const COUNT_PAGE = 1000;

/**
 * Jobs of an account that still need work, by the job's own status: the record's library status
 * is the client's to PATCH, so counting pending and processing records let a client lift the cap.
 */
async function jobsInFlight(ctx: JobContext, accountId: string): Promise<number> {
  let n = 0;
  for (let offset = 0; ; offset += COUNT_PAGE) {
    const { data } = await ctx.store.media.list({ accountId, offset, limit: COUNT_PAGE });
    n += data.filter((r) => {
      const status = r.job?.open ? readJob(r)?.status : undefined;
      return status !== undefined && !FINAL_STATUSES.has(status);
    }).length;
    if (data.length < COUNT_PAGE) return n;
  }
}

/**
 * Submits a job: checks the account's jobs in flight, holds the estimated price (the request
 * guards: balance, spend limits, model scope), stores the record (pending, `submitting`), asks
 * the provider, and records its task id. A provider that refuses ends the record failed, gives
 * the hold back and answers the client with the provider's error.
 */
export function submitJob(ctx: JobContext, s: JobSubmission): Promise<MediaRecord> {
  return ctx.submitTurns(s.auth.account.id, async () => {
    if (s.callbackUrl) checkWebhookUrl(s.callbackUrl, ctx.config.webhookPrivateAddresses);
    const running = await jobsInFlight(ctx, s.auth.account.id);
    const limit = ctx.config.maxInFlightPerAccount;
    if (running >= limit) {
      // A job ends at a poll at the earliest, so that is when a retry can first find room (spec §8.1 wants Retry-After).
      throw new GatewayError('rate_limit_exceeded', `This account has ${running} media jobs running; at most ${limit} may run at once. Wait for one to finish.`, {
        retryAfter: Math.max(1, Math.ceil(ctx.config.pollIntervalMs / 1000)),
        details: { jobs_in_flight: running, limit },
      });
    }
    const id = randomUUID();
    // The length the job will make: the client's, else the provider's default for the model (Veo 2's shortest is 5 s).
    const seconds = s.seconds ?? s.model.provider.instance.jobs?.defaultSeconds?.(s.model.upstreamId);
    const admission = await ctx.guards.admit({
      auth: s.auth,
      method: 'POST',
      route: s.door === 'video' ? '/v1/videos' : '/v1/media/generations',
      clientAddress: s.clientAddress,
      untilBilled: true,
      model: s.model.id,
      servedBy: [s.model],
      media: estimateUnits(s, seconds),
      requestId: jobRequestId(id),
    });
    const now = ctx.clock.now();
    const job: JobState = {
      door: s.door,
      provider: s.model.provider.id,
      modelId: s.model.id,
      upstreamModel: s.model.upstreamId,
      keyId: s.keyId,
      status: 'queued',
      progress: 0,
      ref: null,
      submitting: true,
      seconds: seconds ?? null,
      size: s.size ?? null,
      origin: s.origin,
      billed: false,
      cancelRequested: false,
      callbackUrl: s.callbackUrl ?? null,
      webhook: s.callbackUrl ? { delivered: false, attempts: 0, nextAt: 0 } : null,
      variants: {},
      error: null,
      completedAt: null,
      deadline: unixSeconds(now) + ctx.config.timeoutSeconds,
    };
    const record: MediaRecord = {
      ...pendingRecord({
        id,
        accountId: s.auth.account.id,
        media_type: s.mediaType,
        // The library names a model as every record does (provider/model); the video object shows the upstream's id.
        model: s.model.id,
        prompt: s.prompt,
        parameters: s.parameters,
        created_at: unixSeconds(now),
        provider_task_id: null,
      }),
      job: { open: true, lease: { owner: ctx.instanceId, expiresAt: now + ctx.config.leaseMs }, state: job },
    };
    ctx.submitting.add(id);
    try {
      await createWithinLimits(ctx.library, record);
    } catch (error) {
      ctx.submitting.delete(id);
      await admission.settle(null);
      throw error;
    }
    ctx.holds.set(id, admission);
    const signal = AbortSignal.timeout(60_000);
    try {
      const ref = await s.model.provider.instance.jobs!.submit({
        mediaType: s.mediaType,
        model: s.model.upstreamId,
        prompt: s.prompt,
        seconds: s.seconds,
        size: s.size,
        inputReference: s.inputReference,
        extra: s.extra,
        jobId: id,
        signal,
      });
      const stored = await updateJob(ctx, id, (current) => ({ job: { ...current, ref, submitting: false }, patch: { provider_task_id: ref.id.slice(0, 256) } }));
      ctx.submitting.delete(id);
      return stored ?? record;
    } catch (thrown) {
      const error = mapMediaError(s.model, thrown, signal);
      ctx.holds.delete(id);
      ctx.submitting.delete(id);
      await admission.settle(null);
      await updateJob(ctx, id, (current) => ({
        job: { ...current, submitting: false, status: 'failed', billed: true, error: { code: error.code, message: error.message }, completedAt: unixSeconds(ctx.clock.now()), webhook: null },
        patch: { status: 'failed', error: error.message, completed_at: unixSeconds(ctx.clock.now()) },
        open: false,
      }));
      throw error;
    }
  });
}

/** Units held at submit: the seconds the job makes (the model's price per second), one job (its price per job). */
function estimateUnits(s: JobSubmission, seconds: number | undefined): { mediaSeconds?: number; jobs: number } {
  return s.mediaType === 'threed' ? { jobs: 1 } : { mediaSeconds: seconds ?? defaultSeconds(s.mediaType), jobs: 1 };
}

/** What a job makes when the client names no length (OpenAI's default video is 4 s). */
export function defaultSeconds(mediaType: JobMediaType): number {
  return mediaType === 'video' ? 4 : mediaType === 'music' ? 30 : 0;
}
