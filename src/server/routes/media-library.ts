import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { decodeCreateBody, decodeListQuery, decodePatchBody } from '../../media/index.ts';
import { createMedia, deleteMedia, getMedia, listMedia, updateMedia, viewMedia } from '../../media/index.ts';
import { MEDIA_LIMITS } from '../../media/index.ts';
import type { MediaType } from '../../store/index.ts';
import { requestState } from '../context.ts';
import { bodyLimit, tighterLimit, type ByteLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json } from '../send.ts';
import { authenticateSession } from '../session-auth.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { libraryContentHandler, submitLibraryJob } from './media-jobs.ts';
import { deleteJob, ownJob } from '../../jobs/index.ts';

const BASE = '/v1/media';

/** The smaller of the configured limit and what the largest record needs (413 above). */
function libraryBodyLimit(deps: ServerDeps): ByteLimit {
  return tighterLimit({ bytes: MEDIA_LIMITS.bodyBytes, setting: 'fixed for a /v1/media body, docs/limits.md' }, bodyLimit(deps, 'other'));
}

/** GET /v1/media/generations, or a per-type list when `fixedType` is set. */
function listHandler(deps: ServerDeps, fixedType?: MediaType) {
  return async (event: H3Event): Promise<string> => {
    const { account } = await authenticateSession(event, deps);
    const query = decodeListQuery(event.url.searchParams, fixedType);
    return json(event, await listMedia(deps, { ...query, accountId: account.id }));
  };
}

function generationId(event: H3Event): string {
  return getRouterParam(event, 'id') ?? '';
}

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const { account } = await authenticateSession(event, deps);
    return json(event, viewMedia(await getMedia(deps, generationId(event), account.id)));
  };
}

function createHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const { account } = await authenticateSession(event, deps);
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, libraryBodyLimit(deps)));
    const input = decodeCreateBody(body);
    // A model a provider runs jobs for: the gateway runs the job and moves the record itself.
    const record = (await submitLibraryJob(event, deps, account, input, body)) ?? (await createMedia(deps.media.library, account.id, input));
    event.res.headers.set('location', `${BASE}/generations/${record.id}`);
    return json(event, viewMedia(record), 201);
  };
}

function patchHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const { account } = await authenticateSession(event, deps);
    const id = generationId(event);
    // Ownership first: a foreign or unknown id is 404 even when the body is also wrong.
    await getMedia(deps, id, account.id);
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, libraryBodyLimit(deps)));
    return json(event, viewMedia(await updateMedia(deps.media.library, id, decodePatchBody(body), account.id)));
  };
}

function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<Response> => {
    const { account } = await authenticateSession(event, deps);
    const record = await getMedia(deps, generationId(event), account.id);
    if (record.job && deps.jobs) await deleteJob(deps.jobs.ctx, await ownJob(deps.jobs.ctx, record.id, account.id, record.id, 'media generation'));
    else await deleteMedia(deps, record.id, account.id);
    const headers = new Headers(event.res.headers);
    headers.set('x-request-id', requestState(event).ids.requestId);
    headers.delete('content-type');
    return new Response(null, { status: 204, headers });
  };
}

/** The Media Library (spec §4.1): dashboard-session auth only. */
export function mediaLibraryRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'GET', path: `${BASE}/generations`, handler: listHandler(deps) },
    { method: 'POST', path: `${BASE}/generations`, handler: createHandler(deps) },
    { method: 'GET', path: `${BASE}/images`, handler: listHandler(deps, 'image') },
    { method: 'GET', path: `${BASE}/videos`, handler: listHandler(deps, 'video') },
    { method: 'GET', path: `${BASE}/music`, handler: listHandler(deps, 'music') },
    { method: 'GET', path: `${BASE}/threed`, handler: listHandler(deps, 'threed') },
    { method: 'GET', path: `${BASE}/generations/:id`, handler: getHandler(deps) },
    { method: 'GET', path: `${BASE}/generations/:id/content`, handler: libraryContentHandler(deps) },
    { method: 'PATCH', path: `${BASE}/generations/:id`, handler: patchHandler(deps) },
    { method: 'DELETE', path: `${BASE}/generations/:id`, handler: deleteHandler(deps) },
  ];
}
