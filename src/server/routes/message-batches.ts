import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { cancelBatch, FINISHED } from '../../batches/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import { anthropicPageQuery } from '../../providers/index.ts';
import type { BatchRecord } from '../../store/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { bodyLimit, tighterLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json, sendPieces } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { createFaceBatch, eachJsonLine, faceBatchPage } from './face-batches.ts';
import { publicOrigin } from './media-shared.ts';
import type { RouteDef } from './types.ts';

/**
 * Anthropic's Message Batches (`/v1/messages/batches`, what `client.messages.batches` calls): a
 * face over the gateway's own batches. A create writes the requests as a batch input file of
 * `/v1/messages` lines and a batch on it, run like any other (emulated, or natively on a provider
 * that has it); the views speak Anthropic's shapes (`message_batch`, its `processing_status` and
 * `request_counts`, JSONL results with `succeeded` / `errored` / `canceled` / `expired`). The same
 * batch is visible on `/v1/batches` too. docs/batches.md.
 */

const BASE = '/v1/messages/batches';
const ENDPOINT = '/v1/messages';
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** Anthropic's bound on requests in one batch; the config's `batches.maxFileLines` may be lower. */
const MAX_REQUESTS = 100_000;
/** About how many bytes of result lines go out in one piece of the answer. */
const PIECE_BYTES = 64 * 1024;

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());

interface ResultCounts {
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}

/** One line of a batch's results. */
interface Result {
  custom_id: string;
  result: Record<string, unknown>;
}

/** A line of the batch's output or error file as an Anthropic result line. */
function resultOf(line: Record<string, unknown>): Result | undefined {
  const customId = line.custom_id;
  if (typeof customId !== 'string') return undefined;
  const response = line.response as { status_code?: number; body?: unknown } | null | undefined;
  const error = line.error as { code?: string; message?: string } | null | undefined;
  if (error?.code === 'batch_cancelled') return { custom_id: customId, result: { type: 'canceled' } };
  if (error?.code === 'batch_expired') return { custom_id: customId, result: { type: 'expired' } };
  const status = response?.status_code;
  if (typeof status === 'number' && status >= 200 && status < 300) return { custom_id: customId, result: { type: 'succeeded', message: response!.body } };
  const body = response?.body as { type?: unknown; error?: unknown } | undefined;
  // The line's error as the Messages endpoint answers it live (`{type: 'error', error: {type, message}}`).
  const errorBody = body && body.type === 'error' ? body : { type: 'error', error: { type: 'api_error', message: error?.message ?? 'The request failed.' } };
  return { custom_id: customId, result: { type: 'errored', error: errorBody } };
}

/**
 * A batch refused before it ran (a request the gateway cannot route: the input file's checks fail
 * the whole batch): every request is `errored`, the one the check named with its reason.
 */
async function* refusedResults(deps: ServerDeps, batch: BatchRecord): AsyncGenerator<Result> {
  const problems = batch.errors?.data ?? [];
  const first = problems[0]?.message ?? 'The batch could not run.';
  let index = 0;
  for await (const customId of inputCustomIds(deps, batch)) {
    index += 1;
    const problem = problems.find((p) => p.line === index);
    const type = problem?.code === 'model_not_found' ? 'not_found_error' : 'invalid_request_error';
    const message = problem ? problem.message : `Not run: another request of the batch was refused (${first})`;
    yield { custom_id: customId, result: { type: 'errored', error: { type: 'error', error: { type, message } } } };
  }
}

/**
 * The results of a finished batch, from its output and error files, a line at a time as they are
 * read: a large batch's results are more than memory should hold (only the custom ids that ran
 * are kept, for a cancelled or expired batch's unrun requests).
 */
async function* resultsOf(deps: ServerDeps, batch: BatchRecord): AsyncGenerator<Result> {
  if (batch.status === 'failed' && !batch.output_file_id && !batch.error_file_id) {
    yield* refusedResults(deps, batch);
    return;
  }
  // A cancelled or expired batch's files hold the requests that ran; the others were not run.
  const unrun = batch.status === 'cancelled' ? 'canceled' : batch.status === 'expired' ? 'expired' : undefined;
  const seen = new Set<string>();
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    for await (const line of eachJsonLine(deps, batch.accountId, fileId)) {
      const result = resultOf(line);
      if (!result) continue;
      if (unrun) seen.add(result.custom_id);
      yield result;
    }
  }
  if (!unrun) return;
  for await (const customId of inputCustomIds(deps, batch)) if (!seen.has(customId)) yield { custom_id: customId, result: { type: unrun } };
}

/** The custom ids of the batch's requests, in order. */
async function* inputCustomIds(deps: ServerDeps, batch: BatchRecord): AsyncGenerator<string> {
  for await (const line of eachJsonLine(deps, batch.accountId, batch.input_file_id)) yield String(line.custom_id);
}

async function countsOf(results: AsyncIterable<Result>): Promise<ResultCounts> {
  const counts: ResultCounts = { succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  for await (const { result } of results) counts[result.type as keyof ResultCounts] += 1;
  return counts;
}

/**
 * The counts of a batch that ended other than `completed`, counted from its files the first time
 * and kept on its record: its results no longer change, and a list page of large batches would
 * otherwise read all their files at every call.
 */
async function endedCounts(deps: ServerDeps, batch: BatchRecord): Promise<ResultCounts> {
  if (batch.resultCounts) return batch.resultCounts;
  const counts = await countsOf(resultsOf(deps, batch));
  await deps.store.batches.update(batch.id, { resultCounts: counts });
  return counts;
}

/** Result lines as bytes, several to a piece up to about PIECE_BYTES (a line longer goes alone). */
async function* jsonlPieces(results: AsyncIterable<Result>): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let bytes = 0;
  for await (const result of results) {
    const line = Buffer.from(`${JSON.stringify(result)}\n`);
    held.push(line);
    bytes += line.length;
    if (bytes < PIECE_BYTES) continue;
    yield held.length === 1 ? held[0] : Buffer.concat(held);
    held = [];
    bytes = 0;
  }
  if (held.length > 0) yield Buffer.concat(held);
}

/** A batch in Anthropic's `message_batch` shape. */
async function viewMessageBatch(deps: ServerDeps, event: H3Event, batch: BatchRecord): Promise<Record<string, unknown>> {
  const ended = FINISHED.has(batch.status);
  const { total, completed, failed } = batch.request_counts;
  // A completed batch's counts are its own (output lines succeeded, error lines errored); other ends need the files read.
  const counts = ended && batch.status !== 'completed' ? await endedCounts(deps, batch) : { succeeded: completed, errored: failed, canceled: 0, expired: 0 };
  const endedAt = batch.completed_at ?? batch.cancelled_at ?? batch.expired_at ?? batch.failed_at;
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : batch.status === 'cancelling' ? 'canceling' : 'in_progress',
    request_counts: { processing: ended ? 0 : Math.max(0, total - completed - failed), ...counts },
    ended_at: ended ? iso(endedAt) : null,
    created_at: iso(batch.created_at),
    expires_at: iso(batch.expires_at),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancelling_at),
    results_url: ended ? `${publicOrigin(event, deps)}${BASE}/${batch.id}/results` : null,
  };
}

/** The `requests` of a create: each a unique `custom_id` and the Messages `params`, not streamed. */
function decodeRequests(body: Record<string, unknown>, maxRequests: number): Array<{ custom_id: string; params: Record<string, unknown> }> {
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) throw validationError({ requests: 'must be a non-empty array of {custom_id, params}' });
  if (requests.length > maxRequests) throw new GatewayError('request_too_large', `A message batch may hold ${maxRequests} requests (this one has ${requests.length}).`);
  const seen = new Set<string>();
  const problems: Record<string, string> = {};
  requests.forEach((request: unknown, i) => {
    const r = request as { custom_id?: unknown; params?: unknown } | null;
    if (!r || typeof r !== 'object' || Array.isArray(r)) problems[`requests.${i}`] = 'must be an object with custom_id and params';
    else if (typeof r.custom_id !== 'string' || !CUSTOM_ID.test(r.custom_id)) problems[`requests.${i}.custom_id`] = 'must be 1-64 letters, digits, _ or -';
    else if (seen.has(r.custom_id)) problems[`requests.${i}.custom_id`] = `'${r.custom_id}' is used by an earlier request; custom_id must be unique in the batch`;
    else if (!r.params || typeof r.params !== 'object' || Array.isArray(r.params)) problems[`requests.${i}.params`] = 'must be an object (a Messages request)';
    else if ((r.params as { stream?: unknown }).stream === true) problems[`requests.${i}.params.stream`] = 'must not be true in a batch';
    if (r && typeof r === 'object' && typeof r.custom_id === 'string') seen.add(r.custom_id);
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return requests as Array<{ custom_id: string; params: Record<string, unknown> }>;
}

function createHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    const limit = tighterLimit({ bytes: deps.config.batches.maxFileBytes, setting: 'batches.maxFileBytes' }, bodyLimit(deps, 'inference'));
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, limit));
    const requests = decodeRequests(body, Math.min(MAX_REQUESTS, deps.config.batches.maxFileLines));
    const lines = requests.map((r) => JSON.stringify({ custom_id: r.custom_id, method: 'POST', url: ENDPOINT, body: r.params }));
    const record = await createFaceBatch(deps, auth, { face: 'messages', endpoint: ENDPOINT, lines });
    return json(event, await viewMessageBatch(deps, event, record));
  };
}

/** The caller's message batch (404 for another account's, a deleted one, or one made on /v1/batches). */
async function ownMessageBatch(deps: ServerDeps, accountId: string, id: string): Promise<BatchRecord> {
  const record = await deps.store.batches.get(id);
  if (!record || record.accountId !== accountId || record.face !== 'messages' || record.deletedAt) throw new GatewayError('not_found', `No message batch with id '${id}'.`);
  return record;
}

const batchId = (event: H3Event) => getRouterParam(event, 'id') ?? '';

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    return json(event, await viewMessageBatch(deps, event, await ownMessageBatch(deps, auth.account.id, batchId(event))));
  };
}

function resultsHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    const batch = await ownMessageBatch(deps, auth.account.id, batchId(event));
    if (!FINISHED.has(batch.status)) throw new GatewayError('conflict', `Message batch ${batch.id} has not ended yet; its results are there once processing_status is 'ended'.`);
    // Streamed as the files are read: a large batch's results are more than memory should hold.
    return sendPieces(event, 200, { 'content-type': 'application/binary' }, jsonlPieces(resultsOf(deps, batch)));
  };
}

function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    const { data: page, hasMore } = await faceBatchPage(deps, auth.account.id, 'messages', anthropicPageQuery(event.url.searchParams));
    const data = await Promise.all(page.map((b) => viewMessageBatch(deps, event, b)));
    return json(event, { data, has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null });
  };
}

function cancelHandler(deps: ServerDeps, wake: () => void) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    const batch = await ownMessageBatch(deps, auth.account.id, batchId(event));
    // Anthropic answers a cancel of an ended batch with the batch as it is.
    const next = FINISHED.has(batch.status) ? batch : await cancelBatch(deps, batch);
    wake();
    return json(event, await viewMessageBatch(deps, event, next));
  };
}

function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'messages');
    const batch = await ownMessageBatch(deps, auth.account.id, batchId(event));
    if (!FINISHED.has(batch.status)) throw new GatewayError('conflict', `Message batch ${batch.id} is still processing; cancel it and wait until it has ended before deleting it.`);
    await deps.store.batches.update(batch.id, { deletedAt: Math.floor(deps.clock.now() / 1000) });
    return json(event, { id: batch.id, type: 'message_batch_deleted' });
  };
}

/** Anthropic's Message Batches. Exempt from rate limits as /v1/batches is (§8.1). */
export function messageBatchRoutes(deps: ServerDeps): RouteDef[] {
  const wake = () => deps.batches?.wake();
  return [
    { method: 'POST', path: BASE, handler: createHandler(deps), format: 'messages' },
    { method: 'GET', path: BASE, handler: listHandler(deps), format: 'messages' },
    { method: 'GET', path: `${BASE}/:id`, handler: getHandler(deps), format: 'messages' },
    { method: 'GET', path: `${BASE}/:id/results`, handler: resultsHandler(deps), format: 'messages' },
    { method: 'POST', path: `${BASE}/:id/cancel`, handler: cancelHandler(deps, wake), format: 'messages' },
    { method: 'DELETE', path: `${BASE}/:id`, handler: deleteHandler(deps), format: 'messages' },
  ];
}
