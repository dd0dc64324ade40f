import fs from 'node:fs';
import path from 'node:path';
import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { refuseDeletingBatchInput } from '../../batches/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { isRecord } from '../../formats/index.ts';
import { isFileExpired, type FileRecord } from '../../store/index.ts';
import { FILE_MODE, randomToken } from '../../util/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { appendRawBody, stagedPath } from '../receive-upload.ts';
import type { UploadGate } from '../upload-gate.ts';
import { jsonBodyBounds, readJsonObject, SMALL_JSON_BYTES } from '../read-body.ts';
import { json, sendBody, sendPieces } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { deleteGeminiResponsesFile, geminiResponsesFile } from './gemini-batches.ts';
import { quotaExceeded } from './files.ts';
import type { RouteDef } from './types.ts';

/**
 * Gemini's Files API, as far as `@google/genai`'s `ai.files` uses it: `upload` (Google's
 * resumable protocol: a `start` with the size and metadata answers an upload URL, chunks are
 * posted to it at their offsets, the last with `finalize`), `get`, `list`, `delete` and
 * `download` (`…/files/{id}:download?alt=media`). The files are the account's files (the same
 * store, quota and ids as `/v1/files`); a Gemini batch takes one as its input and its responses
 * file is downloaded here too. docs/batches.md.
 */

const MAX_DISPLAY_NAME = 512;
/** How long an uploaded file is kept: Google deletes its files 48 hours after upload (the File's `expirationTime`). */
const GEMINI_FILE_TTL_SECONDS = 48 * 60 * 60;
/** How long an upload URL takes chunks (Google's stay valid a week); an abandoned upload's bytes are swept after it. */
const SESSION_MS = 60 * 60 * 1000;

const invalid = (message: string) => new GatewayError('bad_request', message);

/**
 * A MIME type (`type/subtype`, parameters allowed: `text/plain; charset=utf-8`; a bare `jsonl`
 * as Google's batch example writes it) of at most 255 characters: the file's type goes out as its
 * download's Content-Type and as the type of its inline data, where a line break fails the answer.
 */
const MIME_TYPE = /^[\w!#$&^.+-]+(?:\/[\w!#$&^.+-]+)?(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\\\x00-\x1f\x7f]*"))*$/;
const MAX_MIME_TYPE = 255;

/** `value` when it is a MIME type, undefined when absent or empty; 400 naming `name` otherwise. */
function checkMimeType(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_MIME_TYPE || !MIME_TYPE.test(value)) throw invalid(`${name} must be a MIME type such as 'application/pdf' or 'text/plain; charset=utf-8' (at most ${MAX_MIME_TYPE} characters).`);
  return value;
}

/** Mints a file id as Google's are (lowercase letters and digits), so the SDK reads it back from a URI too. */
function newGeminiFileId(): string {
  return `file${randomToken(24).toLowerCase()}`;
}

/** A stored file as Google's File resource. */
function viewGeminiFile(record: FileRecord, origin: string): Record<string, unknown> {
  const name = `files/${record.id}`;
  const created = new Date(record.created_at * 1000).toISOString();
  const out: Record<string, unknown> = { name };
  if (record.filename !== '') out.displayName = record.filename;
  Object.assign(out, { mimeType: record.mimeType ?? 'application/octet-stream', sizeBytes: String(record.bytes), createTime: created, updateTime: created });
  if (record.expires_at !== null) out.expirationTime = new Date(record.expires_at * 1000).toISOString();
  return Object.assign(out, { uri: `${origin}/v1beta/${name}`, state: 'ACTIVE', source: 'UPLOADED' });
}

const header = (event: H3Event, name: string) => event.req.headers.get(name) ?? undefined;

/**
 * The origin of the URLs this API hands out (the upload URL the SDK sends its key to, a File's
 * `uri`): `media.publicBaseURL` when the operator set the origin clients use (behind a proxy that
 * ends TLS the request itself says `http://`), else the one the request came to.
 */
function originFor(deps: ServerDeps, event: H3Event): string {
  return deps.media.config.publicBaseURL?.replace(/\/+$/, '') ?? event.url.origin;
}

/** `{file: {displayName, mimeType}}` of a start, in either spelling (the SDK's camelCase, Google's REST snake_case). */
function startMetadata(body: Record<string, unknown>): { displayName?: string; mimeType?: string } {
  const file = isRecord(body.file) ? body.file : {};
  const text = (camel: string, snake: string) => {
    const value = file[camel] ?? file[snake];
    if (value !== undefined && typeof value !== 'string') throw invalid(`file.${camel} must be a string.`);
    return value;
  };
  const displayName = text('displayName', 'display_name');
  if (displayName !== undefined && displayName.length > MAX_DISPLAY_NAME) throw invalid(`file.displayName may be at most ${MAX_DISPLAY_NAME} characters.`);
  return { displayName, mimeType: checkMimeType(text('mimeType', 'mime_type'), 'file.mimeType') };
}

function createUploads(deps: ServerDeps, gate: UploadGate) {
  const dir = path.join(deps.dataDir, 'uploads');
  const uploads = deps.store.uploads;
  const gone = () => new GatewayError('not_found', "No upload in progress at this URL (it was finished, expired, or is another account's).");
  const wrongOffset = (received: number, sent: string | undefined) => invalid(`X-Goog-Upload-Offset must be ${received}, the bytes received so far (it was ${sent ?? 'missing'}).`);

  async function start(event: H3Event, accountId: string): Promise<unknown> {
    if (header(event, 'x-goog-upload-protocol') !== 'resumable' || header(event, 'x-goog-upload-command') !== 'start') {
      throw invalid("Upload files with Google's resumable protocol (what @google/genai's files.upload sends): X-Goog-Upload-Protocol: resumable and X-Goog-Upload-Command: start, then the bytes to the X-Goog-Upload-URL answered.");
    }
    const size = Number(header(event, 'x-goog-upload-header-content-length') ?? NaN);
    if (!Number.isSafeInteger(size) || size < 0) throw invalid('X-Goog-Upload-Header-Content-Length must give the file\'s size in bytes.');
    const now = deps.clock.now();
    const max = deps.config.batches.maxFileBytes;
    if (size > max) throw new GatewayError('request_too_large', `Files are limited to ${max} bytes (batches.maxFileBytes).`);
    const quota = deps.config.storage.fileQuotaBytes;
    const open = await uploads.reservedBy(accountId, now);
    // Each open upload is a record for an hour whatever its size (a 0-byte one holds no quota): counted too.
    const most = deps.config.storage.openUploadsPerAccount;
    if (open.uploads >= most) {
      throw new GatewayError('quota_exceeded', `At most ${most} uploads may be open at once for an account (storage.openUploadsPerAccount); finish one, or wait for one to expire (an upload URL lasts an hour).`, { details: { open_uploads: open.uploads } });
    }
    // Uploads to /v1/files in flight on this instance hold their room too.
    const used = (await deps.store.files.bytesOf(accountId)) + open.bytes + gate.reserved(accountId);
    if (used + size > quota) throw quotaExceeded(quota, used, `this file needs ${size}`);
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, { bytes: SMALL_JSON_BYTES, setting: 'fixed for the metadata that starts an upload' }));
    const meta = startMetadata(body);
    const id = randomToken(32);
    const mimeType = meta.mimeType ?? checkMimeType(header(event, 'x-goog-upload-header-content-type'), 'X-Goog-Upload-Header-Content-Type (the file.mimeType when the metadata names none)') ?? 'application/octet-stream';
    // The file it becomes; its times are set when the last chunk stores it.
    const file: FileRecord = { id: newGeminiFileId(), accountId, bytes: size, created_at: 0, expires_at: null, filename: meta.displayName ?? '', purpose: 'user_data', mimeType };
    await uploads.start({ id, file, received: 0, expiresAt: now + SESSION_MS });
    const url = `${originFor(deps, event)}/upload/v1beta/files?upload_id=${id}&upload_protocol=resumable`;
    return sendBody(event, 200, { 'x-goog-upload-url': url, 'x-goog-upload-status': 'active', 'x-goog-upload-control-url': url }, '');
  }

  /**
   * One chunk at its offset (`upload`), the last with `finalize`: the file is stored, Google's
   * `{file}` answered. The chunk is streamed to a staged file, then handed to the store's upload
   * (any instance's, on PostgreSQL), which takes it only at the offset it has received so far.
   */
  async function chunk(event: H3Event, accountId: string, id: string): Promise<unknown> {
    const session = await uploads.get(accountId, id, deps.clock.now());
    if (!session) throw gone();
    const size = session.file.bytes;
    const commands = new Set((header(event, 'x-goog-upload-command') ?? '').split(',').map((c) => c.trim()));
    if (!commands.has('upload') && !commands.has('finalize')) throw invalid("X-Goog-Upload-Command must be 'upload', 'upload, finalize' or 'finalize'.");
    let received = session.received;
    if (commands.has('upload')) {
      const sent = header(event, 'x-goog-upload-offset');
      const offset = Number(sent ?? NaN);
      if (offset !== received) throw wrongOffset(received, sent);
      // A chunk being received holds a temp file of up to the declared size: it counts as an upload in flight.
      const release = gate.enter(accountId);
      let after: number | undefined;
      try {
        const staged = stagedPath(dir);
        try {
          fs.writeFileSync(staged, '', { mode: FILE_MODE });
          await appendRawBody(event, staged, size - offset, () => invalid(`The upload is longer than the ${size} bytes its start declared.`));
        } catch (error) {
          fs.rmSync(staged, { force: true });
          throw error;
        }
        after = await uploads.append(accountId, id, offset, staged, deps.clock.now());
      } finally {
        release();
      }
      if (after === undefined) {
        // Another chunk at this offset came first (on this instance or another), or the upload ended meanwhile.
        const now = await uploads.get(accountId, id, deps.clock.now());
        throw now ? wrongOffset(now.received, sent) : gone();
      }
      received = after;
    }
    if (!commands.has('finalize')) return sendBody(event, 200, { 'x-goog-upload-status': 'active', 'x-goog-upload-size-received': String(received) }, '');
    if (received !== size) throw invalid(`The upload has ${received} of the ${size} bytes its start declared.`);
    const created = Math.floor(deps.clock.now() / 1000);
    const record: FileRecord = { ...session.file, created_at: created, expires_at: created + GEMINI_FILE_TTL_SECONDS };
    if (!(await uploads.finish(accountId, id, record, deps.clock.now()))) throw gone();
    event.res.headers.set('x-goog-upload-status', 'final');
    return json(event, { file: viewGeminiFile(record, originFor(deps, event)) });
  }

  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const id = event.url.searchParams.get('upload_id');
    if (id !== null) return chunk(event, auth.account.id, id);
    // A new upload is rate limited as POST /v1/files is (20/min per caller by default, §8.1).
    const admission = await deps.guards.admit({ auth, method: 'POST', route: '/v1/files', clientAddress: deps.clientAddress(event) });
    for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
    try {
      return await start(event, auth.account.id);
    } finally {
      await admission.settle(null);
    }
  };
}

async function ownFile(deps: ServerDeps, accountId: string, id: string): Promise<FileRecord> {
  const record = await deps.store.files.get(accountId, id);
  if (!record || isFileExpired(record, deps.clock.now())) throw new GatewayError('file_not_found', `No file named 'files/${id}'.`);
  return record;
}

/**
 * A download's bytes are the uploader's, under the MIME type the uploader named: a browser opening
 * one (a link carrying `?key=`) saves it and, were it shown, runs nothing, never an uploaded
 * text/html page running in the gateway's origin, where the dashboard keeps its session token.
 */
const DOWNLOAD_HEADERS = { 'content-disposition': 'attachment', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" };

/** `GET files/{id}` and `files/{id}:download?alt=media` (the id's segment holds the verb); a batch's responses file too. */
function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const segment = getRouterParam(event, 'id') ?? '';
    const download = segment.endsWith(':download') || event.url.pathname.startsWith('/download/');
    const id = segment.replace(/:download$/, '');
    const responses = await geminiResponsesFile(deps, auth.account.id, id);
    if (responses) {
      // Streamed as it is made: a large batch's responses are never whole in memory.
      if (download) return sendPieces(event, 200, { 'content-type': 'application/jsonl', ...DOWNLOAD_HEADERS }, responses.pieces());
      const file = await responses.file();
      return json(event, { ...file, uri: `${originFor(deps, event)}/v1beta/${String(file.name)}` });
    }
    const record = await ownFile(deps, auth.account.id, id);
    if (!download) return json(event, viewGeminiFile(record, originFor(deps, event)));
    const content = await deps.store.files.contentChunks(auth.account.id, id);
    if (!content) throw new GatewayError('file_not_found', `No file named 'files/${id}'.`);
    return sendPieces(event, 200, { 'content-type': record.mimeType ?? 'application/octet-stream', 'content-length': String(record.bytes), ...DOWNLOAD_HEADERS }, content);
  };
}

/** `GET files` (`pageSize` 1–100, default 10, as Google's; `pageToken` the last id of the page before). */
function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const params = event.url.searchParams;
    const size = params.get('pageSize') === null ? 10 : Number(params.get('pageSize'));
    if (!Number.isInteger(size) || size < 1) throw invalid('pageSize must be a whole number from 1.');
    const after = params.get('pageToken') || undefined;
    const page = await deps.store.files.list({ accountId: auth.account.id, limit: Math.min(size, 100), order: 'desc', ...(after ? { after } : {}) });
    const now = deps.clock.now();
    const out: Record<string, unknown> = { files: page.data.filter((record) => !isFileExpired(record, now)).map((record) => viewGeminiFile(record, originFor(deps, event))) };
    if (page.hasMore && page.data.length > 0) out.nextPageToken = page.data.at(-1)!.id;
    return json(event, out);
  };
}

function deleteHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps, 'gemini');
    const id = getRouterParam(event, 'id') ?? '';
    if (await deleteGeminiResponsesFile(deps, auth.account.id, id)) return json(event, {});
    await refuseDeletingBatchInput(deps.store, auth.account.id, id);
    if (!(await deps.store.files.delete(auth.account.id, id))) throw new GatewayError('file_not_found', `No file named 'files/${id}'.`);
    return json(event, {});
  };
}

/**
 * Gemini's Files API routes: the upload under `/upload/v1beta/files`, the rest under `/v1beta/files` (the download
 * under `/download/v1beta/files` too, as Google's REST example asks), and the same under `/v1` (@google/genai 3's
 * default version), where `/v1/files` is OpenAI's too: there they answer Google's SDKs only (formatClientsOnly).
 */
export function geminiFileRoutes(deps: ServerDeps, gate: UploadGate): RouteDef[] {
  const get = getHandler(deps);
  const upload = createUploads(deps, gate);
  const list = listHandler(deps);
  const remove = deleteHandler(deps);
  return (['v1beta', 'v1'] as const).flatMap((version): RouteDef[] => {
    const shared = version === 'v1' ? { formatClientsOnly: true as const } : {};
    return [
      { method: 'POST', path: `/upload/${version}/files`, handler: upload, format: 'gemini' },
      { method: 'GET', path: `/${version}/files`, handler: list, format: 'gemini', ...shared },
      { method: 'GET', path: `/${version}/files/:id`, handler: get, format: 'gemini', ...shared },
      { method: 'GET', path: `/download/${version}/files/:id`, handler: get, format: 'gemini' },
      { method: 'DELETE', path: `/${version}/files/:id`, handler: remove, format: 'gemini', ...shared },
    ];
  });
}
