import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { GatewayError, validationError } from '../../errors/index.ts';
import type { FileRecord } from '../../store/types.ts';
import { newId } from '../../util/secrets.ts';
import { authenticateApiKey } from '../auth.ts';
import { clientAddress, requestState } from '../context.ts';
import { readMultipart } from '../read-multipart.ts';
import { json, sendBody } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './index.ts';

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

function lineCount(content: Uint8Array): number {
  let lines = 0;
  let last = 10;
  for (const byte of content) {
    if (byte === 10) lines += 1;
    last = byte;
  }
  return last === 10 ? lines : lines + 1;
}

function uploadHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    // POST /v1/files is rate limited (20/min per caller by default, §8.1).
    const admission = await deps.guards.admit({ auth, method: 'POST', route: '/v1/files', clientAddress: clientAddress(event, deps.config.server.trustProxy) });
    for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
    try {
      const limits = deps.config.batches;
      // The multipart envelope around the file takes a few hundred bytes.
      const form = await readMultipart(event, limits.maxFileBytes + 64 * 1024);
      const file = form.get('file');
      const purpose = form.get('purpose');
      const problems: Record<string, string> = {};
      if (!(file instanceof Blob)) problems.file = 'is required (a file part)';
      if (typeof purpose !== 'string' || !(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) problems.purpose = `must be one of: ${UPLOAD_PURPOSES.join(', ')}`;
      if (Object.keys(problems).length > 0) throw validationError(problems);
      const blob = file as Blob;
      if (blob.size > limits.maxFileBytes) throw new GatewayError('request_too_large', `Files are limited to ${limits.maxFileBytes} bytes (this one has ${blob.size}).`);
      const content = new Uint8Array(await blob.arrayBuffer());
      if (purpose === 'batch') {
        const lines = lineCount(content);
        if (lines > limits.maxFileLines) throw new GatewayError('request_too_large', `Batch input files are limited to ${limits.maxFileLines} lines (this one has ${lines}).`);
      }
      const name = blob instanceof File && blob.name ? blob.name : 'upload';
      const record: FileRecord = {
        id: newFileId(),
        accountId: auth.account.id,
        bytes: content.byteLength,
        created_at: Math.floor(deps.clock.now() / 1000),
        expires_at: null,
        filename: name.slice(0, 255),
        purpose: purpose as string,
      };
      await deps.store.files.create(record, content);
      return json(event, viewFile(record));
    } finally {
      await admission.settle(null);
    }
  };
}

function fileId(event: H3Event): string {
  return getRouterParam(event, 'id') ?? '';
}

async function ownFile(deps: ServerDeps, accountId: string, id: string): Promise<FileRecord> {
  const record = await deps.store.files.get(accountId, id);
  if (!record) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
  return record;
}

function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const params = event.url.searchParams;
    const query = listQuery(params, 10_000, 10_000);
    const order = params.get('order');
    if (order !== null && order !== 'desc') throw validationError({ order: "only 'desc' (newest first) is supported" });
    const purpose = params.get('purpose') ?? undefined;
    const page = await deps.store.files.list({ accountId: auth.account.id, ...query, ...(purpose ? { purpose } : {}) });
    const data = page.data.map(viewFile);
    return json(event, { object: 'list', data, first_id: page.data[0]?.id ?? null, last_id: page.data.at(-1)?.id ?? null, has_more: page.hasMore });
  };
}

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    return json(event, viewFile(await ownFile(deps, auth.account.id, fileId(event))));
  };
}

function contentHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const id = fileId(event);
    const record = await ownFile(deps, auth.account.id, id);
    const content = await deps.store.files.content(auth.account.id, id);
    if (!content) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
    const type = record.filename.endsWith('.jsonl') || record.purpose.startsWith('batch') ? 'application/jsonl' : 'application/octet-stream';
    return sendBody(event, 200, { 'content-type': type, 'x-request-id': requestState(event).ids.requestId }, content);
  };
}

function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = fileId(event);
    if (!(await deps.store.files.delete(auth.account.id, id))) throw new GatewayError('file_not_found', `No file with id '${id}'.`);
    return json(event, { id, object: 'file', deleted: true });
  };
}

/** Files (OpenAI's /v1/files shapes; docs/batches.md): owned by the caller's account. */
export function fileRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'POST', path: '/v1/files', handler: uploadHandler(deps), format: 'chat' },
    { method: 'GET', path: '/v1/files', handler: listHandler(deps), format: 'chat' },
    { method: 'GET', path: '/v1/files/:id', handler: getHandler(deps), format: 'chat' },
    { method: 'GET', path: '/v1/files/:id/content', handler: contentHandler(deps), format: 'chat' },
    { method: 'DELETE', path: '/v1/files/:id', handler: deleteHandler(deps), format: 'chat' },
  ];
}
