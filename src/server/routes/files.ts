import fs from 'node:fs';
import path from 'node:path';
import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { refuseDeletingBatchInput } from '../../batches/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import { mimeOfFilename } from '../../formats/index.ts';
import { isFileExpired, type FileRecord } from '../../store/index.ts';
import { newId } from '../../util/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { receiveUpload, type StagedFile } from '../receive-upload.ts';
import type { UploadGate } from '../upload-gate.ts';
import { json, sendPieces } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

/** Purposes a file may be uploaded with (OpenAI's names); `batch_output` is the gateway's own. */
export const UPLOAD_PURPOSES = ['batch', 'user_data', 'assistants', 'fine-tune', 'vision', 'evals'] as const;

/** A file record as OpenAI's file object. */
export function viewFile(record: FileRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: 'file',
    bytes: record.bytes,
    created_at: record.created_at,
    expires_at: record.expires_at,
    filename: record.filename,
    purpose: record.purpose,
    status: 'processed',
    status_details: null,
  };
}

/** Mints a file id (`file-…`, OpenAI's form). */
export function newFileId(): string {
  return newId('file').replace('file_', 'file-');
}

/**
 * How one API's SDKs see `/v1/files`: OpenAI's (the default), or Anthropic's Files API, which
 * shares the path (its SDKs are told apart by `anthropic-version`: RouteDef.formatClientsOnly).
 */
interface FilesFace {
  /** The upload's purpose when its form names none (Anthropic's has no purpose field); undefined: required. */
  purpose?: (typeof UPLOAD_PURPOSES)[number];
  newId: () => string;
  view: (record: FileRecord) => Record<string, unknown>;
  /** The list's page query (or the ids asked for, one page of them) and answer. */
  list: (params: URLSearchParams) => { limit: number; after?: string; order: 'asc' | 'desc'; backwards: boolean } | { ids: string[] };
  page: (data: Array<Record<string, unknown>>, hasMore: boolean) => Record<string, unknown>;
  deleted: (id: string) => Record<string, unknown>;
}

const OPENAI_FILES: FilesFace = {
  newId: newFileId,
  view: viewFile,
  list: (params) => ({ ...listQuery(params, 10_000, 10_000), order: listOrder(params), backwards: false }),
  page: (data, hasMore) => ({ object: 'list', data, first_id: (data[0]?.id as string | undefined) ?? null, last_id: (data.at(-1)?.id as string | undefined) ?? null, has_more: hasMore }),
  deleted: (id) => ({ id, object: 'file', deleted: true }),
};

/** Anthropic's Files API (`client.files.upload`, `list`, `retrieveMetadata`, `delete`): its FileMetadata, newest first, `before_id` / `after_id`. */
const ANTHROPIC_FILES: FilesFace = {
  purpose: 'user_data',
  newId: () => newId('file'),
  view: (record) => ({
    id: record.id,
    type: 'file',
    filename: record.filename,
    mime_type: record.mimeType ?? mimeOfFilename(record.filename) ?? 'application/octet-stream',
    size_bytes: record.bytes,
    created_at: new Date(record.created_at * 1000).toISOString(),
    downloadable: true,
  }),
  // The GA API pages with `page` (the answer's `next_page`) and filters by `ids[]`; the beta one with `after_id` / `before_id`.
  list: (params) => {
    const ids = [...params.getAll('ids[]'), ...params.getAll('ids').flatMap((value) => value.split(','))].filter((id) => id !== '');
    if (ids.length > 0) {
      const unique = [...new Set(ids)];
      if (unique.length > 100) throw validationError({ ids: 'may name at most 100 files' });
      return { ids: unique };
    }
    const raw = params.get('limit');
    const limit = raw === null ? 20 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw validationError({ limit: 'must be a whole number from 1 to 1000' });
    const before = params.get('before_id') || undefined;
    const after = params.get('page') || params.get('after_id') || undefined;
    if (before && after) throw validationError({ before_id: 'cannot be given with after_id or page' });
    // Newest first; `before_id` pages towards newer files (read oldest first from it, then turned round).
    if (before) return { limit, after: before, order: 'asc', backwards: true };
    return { limit, ...(after ? { after } : {}), order: 'desc', backwards: false };
  },
  page: (data, hasMore) => {
    const last = (data.at(-1)?.id as string | undefined) ?? null;
    return { data, first_id: (data[0]?.id as string | undefined) ?? null, last_id: last, has_more: hasMore, next_page: hasMore ? last : null };
  },
  deleted: (id) => ({ id, type: 'file_deleted' }),
};

/** `limit` (1–10,000, default 10,000 like OpenAI) and `after` of a list query. */
export function listQuery(params: URLSearchParams, max: number, fallback: number): { limit: number; after?: string } {
  const raw = params.get('limit');
  let limit = fallback;
  if (raw !== null) {
    limit = Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > max) throw validationError({ limit: `must be a whole number from 1 to ${max}` });
  }
  const after = params.get('after') ?? undefined;
  return after ? { limit, after } : { limit };
}

/** `order` of a list query: `asc` or `desc` (the default), else 422. */
export function listOrder(params: URLSearchParams): 'asc' | 'desc' {
  const order = params.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw validationError({ order: "must be 'asc' or 'desc'" });
  return order;
}

/** The account's file quota (storage.fileQuotaBytes) is used up; `needing`: what the refused write would have added. */
export function quotaExceeded(quota: number, used: number, needing?: string): GatewayError {
  return new GatewayError('quota_exceeded', `The account's files may take ${quota} bytes (storage.fileQuotaBytes); ${used} are in use${needing ? ` and ${needing}` : ''}. Delete files to make room.`, {
    details: { limit: 'storage.fileQuotaBytes', quota_bytes: quota, used_bytes: used },
  });
}

/**
 * The file's bound: the size limit, or the room left in the account's quota when that is smaller.
 * The quota's room is what the account stores less what its uploads hold: Gemini resumable ones
 * open (their declared sizes, all instances) and those in flight on this instance (`gate`, read
 * after the store's answers, in the same turn as the caller's own reservation, so two uploads
 * never share the room).
 */
async function fileBound(deps: ServerDeps, accountId: string, gate: UploadGate): Promise<{ bytes: number; over: () => GatewayError }> {
  const maxFileBytes = deps.config.batches.maxFileBytes;
  const quota = deps.config.storage.fileQuotaBytes;
  const stored = await deps.store.files.bytesOf(accountId);
  const open = await deps.store.uploads.reservedBy(accountId, deps.clock.now());
  const used = stored + open.bytes + gate.reserved(accountId);
  if (used >= quota) throw quotaExceeded(quota, used);
  if (quota - used < maxFileBytes) return { bytes: quota - used, over: () => quotaExceeded(quota, used) };
  return { bytes: maxFileBytes, over: () => new GatewayError('request_too_large', `Files are limited to ${maxFileBytes} bytes (batches.maxFileBytes).`) };
}

function uploadHandler(deps: ServerDeps, gate: UploadGate, face: FilesFace) {
  const dir = path.join(deps.dataDir, 'uploads');
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    // POST /v1/files is rate limited (20/min per caller by default, §8.1).
    const admission = await deps.guards.admit({ auth, method: 'POST', route: '/v1/files', clientAddress: deps.clientAddress(event) });
    for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
    let release: (() => void) | undefined;
    let unhold: (() => void) | undefined;
    try {
      release = gate.enter(auth.account.id);
      const bound = await fileBound(deps, auth.account.id, gate);
      // The multipart envelope around the file takes a few hundred bytes.
      const declared = Number(event.req.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > bound.bytes + 64 * 1024) throw bound.over();
      // Held: the declared size, else all the room left.
      unhold = gate.reserve(auth.account.id, Number.isFinite(declared) ? Math.min(declared, bound.bytes) : bound.bytes);
      const { fields, file } = await receiveUpload(event, { dir, maxFileBytes: bound.bytes, tooLarge: bound.over });
      try {
        return json(event, face.view(await storeUpload(deps, auth.account.id, fields, file, face)));
      } finally {
        if (file) await fs.promises.rm(file.path, { force: true });
      }
    } finally {
      unhold?.();
      release?.();
      await admission.settle(null);
    }
  };
}

/** Checks the fields of a received upload and stores its file (moved or streamed by the store, never read whole). */
async function storeUpload(deps: ServerDeps, accountId: string, fields: Record<string, string>, file: StagedFile | undefined, face: FilesFace): Promise<FileRecord> {
  const purpose = fields.purpose ?? face.purpose;
  const problems: Record<string, string> = {};
  if (!file) problems.file = 'is required (a file part)';
  if (purpose === undefined) problems.purpose = 'is required';
  else if (!(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) problems.purpose = `must be one of: ${UPLOAD_PURPOSES.join(', ')}`;
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const staged = file!;
  const maxLines = deps.config.batches.maxFileLines;
  if (purpose === 'batch' && staged.lines > maxLines) throw new GatewayError('request_too_large', `Batch input files are limited to ${maxLines} lines (this one has ${staged.lines}).`);
  const record: FileRecord = {
    id: face.newId(),
    accountId,
    bytes: staged.bytes,
    created_at: Math.floor(deps.clock.now() / 1000),
    expires_at: null,
    filename: staged.filename.slice(0, 255),
    purpose: purpose!,
  };
  // The part's type, kept for a file named in a prompt later (sent inline with it).
  if (staged.mimeType !== undefined) record.mimeType = staged.mimeType;
  return deps.store.files.createFromFile(record, staged.path);
}

function fileId(event: H3Event): string {
  return getRouterParam(event, 'id') ?? '';
}

async function ownFile(deps: ServerDeps, accountId: string, id: string): Promise<FileRecord> {
  const record = await deps.store.files.get(accountId, id);
  if (!record || isFileExpired(record, deps.clock.now())) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
  return record;
}

function listHandler(deps: ServerDeps, face: FilesFace) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const params = event.url.searchParams;
    const asked = face.list(params);
    const now = deps.clock.now();
    if ('ids' in asked) {
      const found: FileRecord[] = [];
      // One after another: at most 100, each a read of the account's own files.
      for (const id of asked.ids) {
        const record = await deps.store.files.get(auth.account.id, id);
        if (record && !isFileExpired(record, now)) found.push(record);
      }
      return json(event, face.page(found.map(face.view), false));
    }
    const { backwards, ...query } = asked;
    const purpose = params.get('purpose') ?? undefined;
    const page = await deps.store.files.list({ accountId: auth.account.id, ...query, ...(purpose ? { purpose } : {}) });
    const records = page.data.filter((record) => !isFileExpired(record, now));
    if (backwards) records.reverse();
    return json(event, face.page(records.map(face.view), page.hasMore));
  };
}

function getHandler(deps: ServerDeps, face: FilesFace) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    return json(event, face.view(await ownFile(deps, auth.account.id, fileId(event))));
  };
}

function contentHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const id = fileId(event);
    const record = await ownFile(deps, auth.account.id, id);
    // A piece at a time as it is read: a batch's output file can be more than memory should hold.
    const content = await deps.store.files.contentChunks(auth.account.id, id);
    if (!content) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
    const type = record.filename.endsWith('.jsonl') || record.purpose.startsWith('batch') ? 'application/jsonl' : 'application/octet-stream';
    // The record's size is its content's: a HEAD says it too (a client sizes the download first).
    return sendPieces(event, 200, { 'content-type': type, 'content-length': String(record.bytes) }, content);
  };
}

function deleteHandler(deps: ServerDeps, face: FilesFace) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = fileId(event);
    await refuseDeletingBatchInput(deps.store, auth.account.id, id);
    if (!(await deps.store.files.delete(auth.account.id, id))) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
    return json(event, face.deleted(id));
  };
}

/** Files (OpenAI's /v1/files shapes; docs/batches.md): owned by the caller's account. */
/** `gate`: the uploads being received on this instance, shared with the Gemini face's chunks. */
/**
 * Anthropic's Files API on the same paths answers its SDKs only (`anthropic-version`: RouteDef.formatClientsOnly),
 * in its shapes and errors; the files are the account's files, the same as OpenAI's face lists.
 */
export function fileRoutes(deps: ServerDeps, gate: UploadGate): RouteDef[] {
  const content = contentHandler(deps);
  const anthropic = { format: 'messages', formatClientsOnly: true } as const;
  return [
    { method: 'POST', path: '/v1/files', handler: uploadHandler(deps, gate, OPENAI_FILES), format: 'chat' },
    { method: 'GET', path: '/v1/files', handler: listHandler(deps, OPENAI_FILES), format: 'chat' },
    { method: 'GET', path: '/v1/files/:id', handler: getHandler(deps, OPENAI_FILES), format: 'chat' },
    { method: 'GET', path: '/v1/files/:id/content', handler: content, format: 'chat' },
    { method: 'DELETE', path: '/v1/files/:id', handler: deleteHandler(deps, OPENAI_FILES), format: 'chat' },
    { method: 'POST', path: '/v1/files', handler: uploadHandler(deps, gate, ANTHROPIC_FILES), ...anthropic },
    { method: 'GET', path: '/v1/files', handler: listHandler(deps, ANTHROPIC_FILES), ...anthropic },
    { method: 'GET', path: '/v1/files/:id', handler: getHandler(deps, ANTHROPIC_FILES), ...anthropic },
    { method: 'GET', path: '/v1/files/:id/content', handler: content, ...anthropic },
    { method: 'DELETE', path: '/v1/files/:id', handler: deleteHandler(deps, ANTHROPIC_FILES), ...anthropic },
  ];
}
