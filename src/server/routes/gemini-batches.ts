import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { cancelBatch, FINISHED } from '../../batches/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import { camelizeGeminiBody, getFormat, googlePageSize, isRecord, readGeminiPath } from '../../formats/index.ts';
import { isFileExpired, type BatchRecord } from '../../store/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { bodyLimit, tighterLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { jsonBytes, RawJson } from '../json-bytes.ts';
import { json, sendBody } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { createFaceBatch, eachJsonLine, faceBatchPage } from './face-batches.ts';
import { batchResults, type ResultLine } from './gemini-batch-results.ts';
import type { RouteDef } from './types.ts';

/**
 * Gemini's Batch API (what `@google/genai`'s `ai.batches` calls): a face over the gateway's own
 * batches, as Anthropic's Message Batches are. `POST …/models/{model}:batchGenerateContent` with
 * inline requests writes them as a batch input file of Gemini lines and a batch on it, run like
 * any other (emulated, or natively on a provider that has a batch API); `batches/{id}` (get,
 * `:cancel`, delete) and the list answer Google's long-running operation with the batch's state,
 * stats and, once it has ended, its inlined responses in the order of the requests. The same
 * batch is visible on `/v1/batches` too. docs/batches.md.
 */

const BASE = '/v1beta/batches';
/** The same under Google's stable version (`/v1`), @google/genai 3's default. */
const V1_BASE = '/v1/batches';
const CREATE = new Set(['batchGenerateContent']);
/** Where the batch's lines run: the Gemini format's path-model route (its model is each line's `body.model`). */
const ENDPOINT = getFormat('gemini').routes.find((route) => route.from === 'path')!.path;
const TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1beta';
/** The bound on inline requests in one batch (Google bounds the body, 20 MB); the config's `batches.maxFileLines` may be lower. */
const MAX_REQUESTS = 100_000;

const STATES: Record<BatchRecord['status'], string> = {
  validating: 'BATCH_STATE_PENDING',
  in_progress: 'BATCH_STATE_RUNNING',
  finalizing: 'BATCH_STATE_RUNNING',
  cancelling: 'BATCH_STATE_RUNNING',
  completed: 'BATCH_STATE_SUCCEEDED',
  failed: 'BATCH_STATE_FAILED',
  cancelled: 'BATCH_STATE_CANCELLED',
  expired: 'BATCH_STATE_EXPIRED',
};

/** A batch id (what a list's `nextPageToken` is). */
const BATCH_ID = /^batch_[A-Za-z0-9_-]{1,200}$/;

const iso = (seconds: number | null | undefined) => (seconds === null || seconds === undefined ? undefined : new Date(seconds * 1000).toISOString());

const invalid = (message: string) => new GatewayError('bad_request', message);

/** One request of a create: the GenerateContentRequest (its own `model`, else the batch's) and its metadata (inline) or key (a file's line). */
interface BatchRequest {
  request: Record<string, unknown>;
  model: string;
  metadata?: unknown;
  key?: unknown;
}

/** A GenerateContentRequest of a batch (`where` names it in a refusal), with its model: its own, else the batch's. */
function batchRequest(item: Record<string, unknown>, model: string, where: string): BatchRequest {
  const { model: own, ...request } = item;
  if (request.stream !== undefined) throw invalid(`${where} has no 'stream' field.`);
  return { request, model: typeof own === 'string' && own !== '' ? own.replace(/^models\//, '') : model };
}

/** A create's `batch` (camelCased as Google reads it): inline requests (`inputConfig.requests.requests`), or the name of an uploaded file of them (`inputConfig.fileName`). */
function decodeCreate(raw: Record<string, unknown>, model: string, maxRequests: number): { requests?: BatchRequest[]; fileName?: string; displayName: string } {
  const body = camelizeGeminiBody(raw);
  const batch = body.batch;
  if (!isRecord(batch)) throw invalid("The body needs a 'batch' object with an inputConfig.");
  const input = batch.inputConfig;
  if (!isRecord(input)) throw invalid('batch.inputConfig is required: the requests inline (inputConfig.requests.requests) or an uploaded file of them (inputConfig.fileName).');
  const displayName = typeof batch.displayName === 'string' ? batch.displayName : '';
  if (input.fileName !== undefined) {
    if (typeof input.fileName !== 'string' || !/^files\/[^/]+$/.test(input.fileName)) throw invalid("batch.inputConfig.fileName must name an uploaded file ('files/…').");
    return { fileName: input.fileName, displayName };
  }
  const list = isRecord(input.requests) ? input.requests.requests : undefined;
  if (!Array.isArray(list) || list.length === 0) throw invalid('batch.inputConfig.requests.requests must be a non-empty list of {request, metadata}.');
  if (list.length > maxRequests) throw new GatewayError('request_too_large', `A batch may hold ${maxRequests} requests (this one has ${list.length}).`);
  const requests = list.map((item: unknown, i): BatchRequest => {
    if (!isRecord(item) || !isRecord(item.request)) throw invalid(`batch.inputConfig.requests.requests[${i}] must be an object with a 'request' (a GenerateContentRequest).`);
    const one = batchRequest(item.request, model, `batch.inputConfig.requests.requests[${i}].request`);
    return item.metadata === undefined ? one : { ...one, metadata: item.metadata };
  });
  return { requests, displayName };
}

/**
 * The requests of an uploaded input file (Google's JSONL: a line `{key, request}`, or the
 * GenerateContentRequest itself), camelCased as inline ones are. A file that is not there is a
 * 404, a line that is not a request a 400 naming it.
 */
async function fileRequests(deps: ServerDeps, accountId: string, fileName: string, model: string, maxRequests: number): Promise<BatchRequest[]> {
  const id = fileName.slice('files/'.length);
  const record = await deps.store.files.get(accountId, id);
  const content = record && !isFileExpired(record, deps.clock.now()) ? await deps.store.files.content(accountId, id) : undefined;
  if (!content) throw new GatewayError('file_not_found', `No file named '${fileName}'.`);
  const texts = content.toString('utf8').split('\n').filter((text) => text.trim() !== '');
  if (texts.length === 0) throw invalid(`The input file '${fileName}' holds no requests.`);
  if (texts.length > maxRequests) throw new GatewayError('request_too_large', `A batch may hold ${maxRequests} requests (${fileName} has ${texts.length}).`);
  return texts.map((text, i) => {
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      throw invalid(`Line ${i + 1} of ${fileName} is not JSON.`);
    }
    if (!isRecord(line)) throw invalid(`Line ${i + 1} of ${fileName} must be a JSON object: {key, request} or a GenerateContentRequest.`);
    const request = camelizeGeminiBody(isRecord(line.request) ? line.request : line);
    const one = batchRequest(request, model, `line ${i + 1} of ${fileName}`);
    return isRecord(line.request) && line.key !== undefined ? { ...one, key: line.key } : one;
  });
}


/** A line that did not run (a cancel, the window passed, the batch refused): an inlined response's error. */
function unrun(status: BatchRecord['status'], reason?: string): Record<string, unknown> {
  if (status === 'cancelled') return { code: 499, message: 'Not run: the batch was cancelled.', status: 'CANCELLED' };
  if (status === 'expired') return { code: 504, message: 'Not run: the batch expired before this request ran.', status: 'DEADLINE_EXCEEDED' };
  return { code: 400, message: reason ?? 'Not run: the batch could not run.', status: 'INVALID_ARGUMENT' };
}

/** A result line as an inlined response (a responses file's line: keyed), the GenerateContentResponse or the error the route answers live. */
function inlinedOf(result: ResultLine | undefined, input: Record<string, unknown>, status: BatchRecord['status'], reason?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.key !== undefined) out.key = input.key;
  const response = result?.response;
  const code = response?.status_code;
  if (result && typeof code === 'number' && code >= 200 && code < 300) out.response = response!.body;
  else if (result && (result.error?.code === 'batch_cancelled' || result.error?.code === 'batch_expired')) out.error = unrun(result.error.code === 'batch_cancelled' ? 'cancelled' : 'expired');
  else if (result) {
    const body = response?.body as { error?: unknown } | undefined;
    out.error = isRecord(body?.error) ? body.error : { code: code ?? 500, message: result.error?.message ?? 'The request failed.', status: 'INTERNAL' };
  } else out.error = unrun(status, reason);
  if (input.metadata !== undefined) out.metadata = input.metadata;
  return out;
}

/**
 * The inlined responses of an ended batch, one per request in the order they were sent, each as
 * its JSON bytes, made one at a time as the input file is read: a large batch's responses are
 * never all in memory at once, nor (result files in input order) the result files.
 */
async function* eachInlinedResponse(deps: ServerDeps, batch: BatchRecord): AsyncGenerator<Buffer> {
  const results = await batchResults(deps, batch);
  // A batch refused at its input check ran nothing: each request says why (its own reason, else the first).
  const problems = batch.errors?.data ?? [];
  const first = problems[0]?.message;
  const reasons = new Map(problems.map((p) => [p.line, p.message]));
  let index = 0;
  try {
    for await (const input of eachJsonLine(deps, batch.accountId, batch.input_file_id)) {
      index += 1;
      const reason = reasons.get(index) ?? (first ? `Not run: another request of the batch was refused (${first})` : undefined);
      const result = await results.resultOf(String(input.custom_id));
      yield Buffer.from(JSON.stringify(inlinedOf(result, input, batch.status, reason)));
    }
  } finally {
    await results.close();
  }
}

/** All of an (inline) batch's inlined responses: an operation's answer holds them whole. */
async function inlinedResponses(deps: ServerDeps, batch: BatchRecord): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const bytes of eachInlinedResponse(deps, batch)) all.push(bytes);
  return all;
}

/** Pieces a download sends: lines gathered to about this many bytes (not one write per line). */
const PIECE_BYTES = 64 * 1024;

/** A responses file's JSONL as pieces of about PIECE_BYTES, made as they are sent; `counted` gets the total at the end. */
async function* responsesFilePieces(deps: ServerDeps, batch: BatchRecord, counted?: (bytes: number) => void): AsyncGenerator<Buffer> {
  const newline = Buffer.from('\n');
  let parts: Buffer[] = [];
  let size = 0;
  let total = 0;
  for await (const line of eachInlinedResponse(deps, batch)) {
    parts.push(line, newline);
    size += line.length + 1;
    if (size >= PIECE_BYTES) {
      yield Buffer.concat(parts, size);
      total += size;
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
  counted?.(total + size);
}

const ELSEWHERE = 'read its results from its output file on the OpenAI face (GET /v1/batches/{id}, then GET /v1/files/{output_file_id}/content)';

/** An operation's answer as bytes: an ended inline batch's responses may be more than one string holds. */
function sendOperation(event: H3Event, body: Record<string, unknown>): unknown {
  return sendBody(event, 200, { 'content-type': 'application/json' }, jsonBytes(body, "The batch's inlined responses", ELSEWHERE));
}

/** A batch as Google's long-running operation (`batches/{id}`), with its output once it has ended. */
async function operationOf(deps: ServerDeps, batch: BatchRecord): Promise<Record<string, unknown>> {
  const name = `batches/${batch.id}`;
  const ended = FINISHED.has(batch.status);
  const { total, completed, failed } = batch.request_counts;
  const endedAt = batch.completed_at ?? batch.cancelled_at ?? batch.expired_at ?? batch.failed_at;
  const updatedAt = Math.max(batch.created_at, batch.in_progress_at ?? 0, batch.cancelling_at ?? 0, endedAt ?? 0);
  const metadata: Record<string, unknown> = {
    '@type': `${TYPE}.GenerateContentBatch`,
    model: `models/${batch.model ?? ''}`,
    displayName: batch.displayName ?? '',
    createTime: iso(batch.created_at),
    updateTime: iso(updatedAt),
    batchStats: { requestCount: String(total), successfulRequestCount: String(completed), failedRequestCount: String(failed), pendingRequestCount: String(ended ? 0 : Math.max(0, total - completed - failed)) },
    state: STATES[batch.status],
    name,
  };
  if (ended) metadata.endTime = iso(endedAt);
  const operation: Record<string, unknown> = { name, metadata };
  if (!ended) return operation;
  // A batch made from a file answers in a file (its lines in the order of the requests), as Google's does.
  const output = batch.inputFile ? { responsesFile: responsesFileName(batch) } : { inlinedResponses: { inlinedResponses: (await inlinedResponses(deps, batch)).map((bytes) => new RawJson(bytes)) } };
  metadata.output = output;
  operation.done = true;
  operation.response = { '@type': `${TYPE}.GenerateContentBatchOutput`, ...output };
  return operation;
}

function createHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const target = readGeminiPath(event.url.pathname, event.url.searchParams, CREATE);
    if (!target) throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
    deps.registry.resolve(target.model); // model_not_found (404) for a model the gateway does not serve
    const limit = tighterLimit({ bytes: deps.config.batches.maxFileBytes, setting: 'batches.maxFileBytes' }, bodyLimit(deps, 'inference'));
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, limit));
    const max = Math.min(MAX_REQUESTS, deps.config.batches.maxFileLines);
    const { requests: inline, fileName, displayName } = decodeCreate(body, target.model, max);
    const requests = inline ?? (await fileRequests(deps, auth.account.id, fileName!, target.model, max));
    const lines = requests.map((r, i) => {
      const line: Record<string, unknown> = { custom_id: `request-${i + 1}`, method: 'POST', url: ENDPOINT, body: { model: r.model, ...r.request } };
      if (r.metadata !== undefined) line.metadata = r.metadata;
      if (r.key !== undefined) line.key = r.key;
      return JSON.stringify(line);
    });
    const record = await createFaceBatch(deps, auth, { face: 'gemini', endpoint: ENDPOINT, lines, model: target.model, displayName, ...(fileName ? { inputFile: fileName } : {}) });
    return sendOperation(event, await operationOf(deps, record));
  };
}

/** The name of a file batch's responses file: `files/batch-{id}` (it is made from the batch's results when read). */
function responsesFileName(batch: BatchRecord): string {
  return `files/batch-${batch.id.slice('batch_'.length)}`;
}

/**
 * A file batch's responses file by its id (`batch-…`), once the batch has ended: Google's File
 * resource and its JSONL, one line per request in the order of the input file, each
 * `{key, response}` or `{key, error}`. The JSONL is made as it is sent (`pieces`); the resource's
 * `sizeBytes` is counted once, the first time it is asked (the lines are made and dropped, never
 * held), and kept on the batch: an ended batch's responses do not change. Undefined for any other id.
 */
export async function geminiResponsesFile(deps: ServerDeps, accountId: string, fileId: string): Promise<{ file: () => Promise<Record<string, unknown>>; pieces: () => AsyncIterable<Buffer> } | undefined> {
  const batch = await responsesFileBatch(deps, accountId, fileId);
  if (!batch) return undefined;
  const created = iso(batch.completed_at ?? batch.failed_at ?? batch.cancelled_at ?? batch.expired_at);
  let known = batch.responsesBytes;
  const remember = (bytes: number) => {
    if (known === bytes) return;
    known = bytes;
    void deps.store.batches.update(batch.id, { responsesBytes: bytes }).catch((error: unknown) => deps.log.warn('could not keep the size of a batch responses file', { batch: batch.id, error: String(error) }));
  };
  return {
    file: async () => {
      let size = known;
      if (size === undefined) {
        size = 0;
        for await (const piece of responsesFilePieces(deps, batch)) size += piece.length;
        remember(size);
      }
      return { name: responsesFileName(batch), mimeType: 'application/jsonl', sizeBytes: String(size), createTime: created, updateTime: created, state: 'ACTIVE', source: 'GENERATED' };
    },
    pieces: () => responsesFilePieces(deps, batch, remember),
  };
}

/** The ended file batch whose responses file `fileId` (`batch-…`) is, while that file is there; undefined for any other id. */
async function responsesFileBatch(deps: ServerDeps, accountId: string, fileId: string): Promise<BatchRecord | undefined> {
  if (!fileId.startsWith('batch-')) return undefined;
  const batch = await deps.store.batches.get(`batch_${fileId.slice('batch-'.length)}`);
  if (!batch || batch.accountId !== accountId || batch.face !== 'gemini' || !batch.inputFile || !FINISHED.has(batch.status) || batch.responsesDeletedAt) return undefined;
  return batch;
}

/**
 * `DELETE files/batch-…`: a file batch's responses file is deleted as Google deletes any file.
 * The batch remembers it first (the file is gone even if what follows fails), then the output and
 * error files it is made from go; the batch still names it, as Google's does. False for any other id.
 */
export async function deleteGeminiResponsesFile(deps: ServerDeps, accountId: string, fileId: string): Promise<boolean> {
  const batch = await responsesFileBatch(deps, accountId, fileId);
  if (!batch) return false;
  await deps.store.batches.update(batch.id, { responsesDeletedAt: Math.floor(deps.clock.now() / 1000) });
  for (const id of [batch.output_file_id, batch.error_file_id]) if (id) await deps.store.files.delete(accountId, id);
  return true;
}

/** The caller's Gemini batch (404 for another account's, a deleted one, or one made on another face). */
async function ownGeminiBatch(deps: ServerDeps, accountId: string, id: string): Promise<BatchRecord> {
  const record = await deps.store.batches.get(id);
  if (!record || record.accountId !== accountId || record.face !== 'gemini' || record.deletedAt) throw new GatewayError('not_found', `No batch named 'batches/${id}'.`);
  return record;
}

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    return sendOperation(event, await operationOf(deps, await ownGeminiBatch(deps, auth.account.id, getRouterParam(event, 'id') ?? '')));
  };
}

/** `POST batches/{id}:cancel` (the id's segment holds the verb). Google answers an empty object. */
function cancelHandler(deps: ServerDeps, wake: () => void) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const segment = getRouterParam(event, 'id') ?? '';
    if (!segment.endsWith(':cancel')) throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
    const batch = await ownGeminiBatch(deps, auth.account.id, segment.slice(0, -':cancel'.length));
    if (!FINISHED.has(batch.status)) await cancelBatch(deps, batch);
    wake();
    return json(event, {});
  };
}

function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const params = event.url.searchParams;
    // `pageToken`: the last batch id of the page before (a store cursor: the list is read a page at a time).
    const token = params.get('pageToken') || undefined;
    if (token !== undefined && !BATCH_ID.test(token)) throw validationError({ pageToken: 'is not a nextPageToken this list gave' });
    const { data: page, hasMore } = await faceBatchPage(deps, auth.account.id, 'gemini', { limit: googlePageSize(params), ...(token ? { after: token } : {}) });
    const out: Record<string, unknown> = { operations: await Promise.all(page.map((b) => operationOf(deps, b))) };
    if (hasMore && page.length > 0) out.nextPageToken = page.at(-1)!.id;
    return sendOperation(event, out);
  };
}

/** Google's delete: the client no longer wants the operation; a batch still running is not cancelled by it (it runs on, unseen here). */
function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const batch = await ownGeminiBatch(deps, auth.account.id, getRouterParam(event, 'id') ?? '');
    await deps.store.batches.update(batch.id, { deletedAt: Math.floor(deps.clock.now() / 1000) });
    return json(event, {});
  };
}

/**
 * Gemini's batches: its routes under `/v1beta/batches` and `/v1/batches`, and the create, which shares the Gemini
 * path-model route's pattern (`…/models/{model}:batchGenerateContent`) and is that route's
 * path action. Exempt from rate limits as /v1/batches is (§8.1).
 */
export function geminiBatchRoutes(deps: ServerDeps): { routes: RouteDef[]; create: { matches: (pathname: string) => boolean; handler: (event: H3Event) => Promise<unknown> } } {
  const wake = () => deps.batches?.wake();
  const list = listHandler(deps);
  const get = getHandler(deps);
  const cancel = cancelHandler(deps, wake);
  const remove = deleteHandler(deps);
  return {
    routes: [BASE, V1_BASE].flatMap((base): RouteDef[] => {
      // `/v1/batches` is OpenAI's too: there they answer Google's SDKs only (@google/genai 3's default version).
      const shared = base === V1_BASE ? { formatClientsOnly: true as const } : {};
      return [
        { method: 'GET', path: base, handler: list, format: 'gemini', ...shared },
        { method: 'GET', path: `${base}/:id`, handler: get, format: 'gemini', ...shared },
        { method: 'POST', path: `${base}/:id`, handler: cancel, format: 'gemini', ...shared },
        { method: 'DELETE', path: `${base}/:id`, handler: remove, format: 'gemini', ...shared },
      ];
    }),
    create: { matches: (pathname) => pathname.endsWith(':batchGenerateContent'), handler: createHandler(deps) },
  };
}
