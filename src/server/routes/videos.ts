import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { GatewayError, validationError } from '../../errors/index.ts';
import {
  decodeVideoRequest, deleteJob, jobModelFor, readJob, listVideos, ownVideo, readJobContent, requestCancel, viewVideo,
  type JobRecord, type JobRunner,
} from '../../jobs/index.ts';
import type { JobUpload } from '../../plugin-kit/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { readMultipart } from '../read-multipart.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { publicOrigin } from './media-shared.ts';
import { sendJobContent } from './job-content.ts';
import { submitObservedJob, webhookSecretHandler } from './media-jobs.ts';

const BASE = '/v1/videos';

/** The job runner, or 503 in a process that runs no jobs. */
export function jobsOf(deps: ServerDeps): JobRunner {
  if (!deps.jobs) throw new GatewayError('service_unavailable', 'This gateway process runs no media jobs.');
  return deps.jobs;
}

/** The create body: JSON, or multipart (what the `openai` SDK sends) with an `input_reference` file. */
async function readCreateBody(event: H3Event, deps: ServerDeps): Promise<{ fields: Record<string, unknown>; upload?: JobUpload }> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) return { fields: (await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'other')))).body };
  const form = await readMultipart(event, bodyLimit(deps, 'media'));
  const fields: Record<string, unknown> = {};
  let upload: JobUpload | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'input_reference') upload = { data: new Uint8Array(await value.arrayBuffer()), filename: value.name || 'reference', contentType: value.type || 'application/octet-stream' };
    else throw validationError({ [name]: 'must be a text field (only input_reference is a file)' });
  }
  return { fields, upload };
}

function createHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const runner = jobsOf(deps);
    const { fields, upload } = await readCreateBody(event, deps);
    const request = decodeVideoRequest(fields);
    const model = jobModelFor(deps.registry, request.model, 'video');
    if (!model) {
      deps.registry.resolve(request.model); // 404 model_not_found when nothing serves the id
      throw new GatewayError('bad_request', `The model '${request.model}' does not make videos; use a model of type video_generation (GET /v1/models?type=video_generation).`);
    }
    const parameters: Record<string, unknown> = {};
    if (request.seconds !== undefined) parameters.seconds = request.seconds;
    if (request.size !== undefined) parameters.size = request.size;
    const record = await submitObservedJob(event, runner.ctx, {
      door: 'video', auth, keyId: auth.key.id, mediaType: 'video', model, prompt: request.prompt, seconds: request.seconds, size: request.size,
      inputReference: upload, extra: request.extra, parameters, callbackUrl: request.callbackUrl,
      origin: publicOrigin(event, deps), clientAddress: deps.clientAddress(event),
    }, request.model);
    runner.wake();
    return json(event, viewVideo(record, readJob(record)!));
  };
}

function ownVideoOf(deps: ServerDeps, id: string, accountId: string): Promise<JobRecord> {
  return ownVideo(jobsOf(deps).ctx, id, accountId);
}

const videoId = (event: H3Event) => getRouterParam(event, 'id') ?? '';

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { record, job } = await ownVideoOf(deps, videoId(event), auth.account.id);
    return json(event, viewVideo(record, job));
  };
}

function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const params = event.url.searchParams;
    const rawLimit = params.get('limit');
    const limit = rawLimit === null ? 20 : Number(rawLimit);
    const order = params.get('order') ?? 'desc';
    const problems: Record<string, string> = {};
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) problems.limit = 'must be an integer from 1 to 100';
    if (order !== 'asc' && order !== 'desc') problems.order = "must be 'asc' or 'desc'";
    if (Object.keys(problems).length > 0) throw validationError(problems);
    return json(event, await listVideos(jobsOf(deps).ctx, auth.account.id, { limit, after: params.get('after') ?? undefined, order: order as 'asc' | 'desc' }));
  };
}

function contentHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<Response> => {
    const auth = authenticateApiKey(event, deps);
    const owned = await ownVideoOf(deps, videoId(event), auth.account.id);
    return sendJobContent(event, owned, (record, variant, signal) => readJobContent(jobsOf(deps).ctx, record, variant, signal));
  };
}

function cancelHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const runner = jobsOf(deps);
    const { record, job } = await requestCancel(runner.ctx, await ownVideoOf(deps, videoId(event), auth.account.id), (id) => runner.wake(id));
    return json(event, viewVideo(record, job));
  };
}

function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const runner = jobsOf(deps);
    const deleted = await deleteJob(runner.ctx, await ownVideoOf(deps, videoId(event), auth.account.id));
    runner.wake(deleted.id);
    return json(event, deleted);
  };
}

/** OpenAI's `/v1/videos` (the SDK's `videos` resource), plus `POST /v1/videos/{id}/cancel`: API key auth. */
export function videoRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'POST', path: BASE, handler: createHandler(deps) },
    { method: 'GET', path: BASE, handler: listHandler(deps) },
    { method: 'GET', path: `${BASE}/:id`, handler: getHandler(deps) },
    { method: 'GET', path: `${BASE}/:id/content`, handler: contentHandler(deps) },
    { method: 'POST', path: `${BASE}/:id/cancel`, handler: cancelHandler(deps) },
    { method: 'DELETE', path: `${BASE}/:id`, handler: deleteHandler(deps) },
    { method: 'GET', path: '/v1/webhooks/secret', handler: webhookSecretHandler(deps) },
  ];
}
