import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { dashboardKey, decodeLibraryJob, jobModelFor, ownJob, readJobContent, submitJob, type JobContext, type JobSubmission } from '../../jobs/index.ts';
import type { MediaCreateInput } from '../../media/index.ts';
import type { AccountRecord, MediaRecord } from '../../store/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { requestState } from '../context.ts';
import { authenticateSession } from '../session-auth.ts';
import type { ServerDeps } from '../types.ts';
import { sendJobContent } from './job-content.ts';
import { json } from '../send.ts';
import { publicOrigin } from './media-shared.ts';

/**
 * Submits a job for the model the client named: the request's record (live view, request log,
 * metrics) names that model, and the one that took the job once its provider did, as an image's does.
 */
export async function submitObservedJob(event: H3Event, ctx: JobContext, submission: JobSubmission, requested: string): Promise<MediaRecord> {
  const record = requestState(event).record;
  if (record) record.requestedModel = requested;
  const made = await submitJob(ctx, submission);
  record?.servedBy(submission.model.provider.id, submission.model.id);
  return made;
}

/**
 * A Media Library create whose model a provider runs jobs for (video, music, 3D): submitted as
 * a job billed to the account; undefined for any other model (the record stays client-driven).
 */
export async function submitLibraryJob(event: H3Event, deps: ServerDeps, account: AccountRecord, input: MediaCreateInput, body: Record<string, unknown>): Promise<MediaRecord | undefined> {
  if (!deps.jobs || input.mediaType === 'image') return undefined;
  const model = jobModelFor(deps.registry, input.model, input.mediaType);
  if (!model) return undefined;
  const parameters = input.parameters ?? {};
  const request = decodeLibraryJob(body, input.model, parameters);
  const record = await submitObservedJob(event, deps.jobs.ctx, {
    door: 'media', auth: { account, key: dashboardKey(account) }, keyId: null, mediaType: input.mediaType, model, prompt: request.prompt,
    seconds: request.seconds, size: request.size, extra: request.extra, parameters, callbackUrl: request.callbackUrl,
    origin: publicOrigin(event, deps), clientAddress: deps.clientAddress(event),
  }, input.model);
  deps.jobs.wake();
  return record;
}

/** The caller's account: a dashboard session, or an API key (content URLs work with either). */
async function ownerOf(event: H3Event, deps: ServerDeps): Promise<string> {
  const header = event.req.headers.get('authorization') ?? '';
  const apiKey = /^Bearer\s+sk-/i.test(header.trim()) || event.req.headers.has('x-api-key');
  return apiKey ? authenticateApiKey(event, deps).account.id : (await authenticateSession(event, deps)).account.id;
}

/** `GET /v1/media/generations/{id}/content`: a job's bytes through the gateway (a record's `primary_url`). */
export function libraryContentHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<Response> => {
    const accountId = await ownerOf(event, deps);
    const id = getRouterParam(event, 'id') ?? '';
    const jobs = deps.jobs;
    if (!jobs) throw new GatewayError('not_found', `No media generation with id '${id}'.`);
    const owned = await ownJob(jobs.ctx, id, accountId, id, 'media generation');
    return sendJobContent(event, owned, (record, variant, signal) => readJobContent(jobs.ctx, record, variant, signal));
  };
}

/** `GET /v1/webhooks/secret`: the caller's webhook signing secret (`whsec_…`), to verify `callback_url` deliveries. */
export function webhookSecretHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const accountId = await ownerOf(event, deps);
    if (!deps.jobs) throw new GatewayError('service_unavailable', 'This gateway process runs no media jobs.');
    return json(event, { object: 'webhook_secret', secret: deps.jobs.ctx.webhookSecret(accountId), scheme: 'standard-webhooks' });
  };
}
