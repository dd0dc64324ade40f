import type { AuthContext } from '../accounts/index.ts';
import { GatewayError } from '../errors/index.ts';
import { getFormat, mimeOfFilename, type InlineFile } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import { isFileExpired, type FileRecord } from '../store/index.ts';
import type { ExchangeDeps } from './types.ts';

/** A request body with its text. */
export interface InlinedBody {
  body: Record<string, unknown>;
  raw: string;
}

/** The ids of files uploaded to the gateway a request names (its format's `storedFiles`); empty for most. */
export function storedFilesOf(format: WireFormat, body: Record<string, unknown>, raw: string): string[] {
  return getFormat(format).storedFiles?.find(body, raw) ?? [];
}

/** The most ids `namesGatewayFiles` looks up; a body naming more is taken as naming the gateway's. */
const MOST_LOOKUPS = 1000;

/**
 * Whether `ids` (what `storedFilesOf` found in a body of `format`) name a file the gateway holds
 * for the account, or one the format claims as the gateway's even when missing (Gemini's file
 * URIs): such a body must run through the live exchange, which carries the files inline. Ids the
 * gateway does not hold and the format leaves to the upstream (an OpenAI `file-…` uploaded to
 * OpenAI itself) go up as written, so they do not count. Looked up one at a time, stopping at the
 * first the gateway holds.
 */
export async function namesGatewayFiles(deps: Pick<ExchangeDeps, 'store' | 'clock'>, format: WireFormat, ids: Iterable<string>, accountId: string): Promise<boolean> {
  const face = getFormat(format).storedFiles;
  if (!face) return false;
  const now = deps.clock.now();
  let lookups = 0;
  for (const id of new Set(ids)) {
    if (face.missing(id) || ++lookups > MOST_LOOKUPS) return true;
    const record = await deps.store.files.get(accountId, id);
    if (record && !isFileExpired(record, now)) return true;
    // One the gateway deleted: the live exchange answers it (inlineStoredFiles), the upstream must not be sent the id.
    if (record || (await deps.store.files.wasDeleted(accountId, id))) return true;
  }
  return false;
}

/**
 * The request with the gateway's files it names carried inline (Gemini: `fileData` of an
 * uploaded file → `inlineData`; Chat, Responses and Messages: a `file_id` → the format's inline
 * data), read from the calling account's files only: another account's file is the same as a
 * missing one, the format's own refusal, or left as written where the format leaves unknown ids to
 * the upstream. Bounded as inline data is: the body with the files in it (base64) may be no larger
 * than `server.bodyLimits.inference`, which is checked from the files' sizes before any is read,
 * and is built within the process's budget of large bodies (ExchangeDeps.bodyBudget: 503 past it).
 * A key whose endpoints leave out `files` may not read them so either: 403, as on `/v1/files`.
 */
export async function inlineStoredFiles(deps: Pick<ExchangeDeps, 'store' | 'config' | 'clock' | 'bodyBudget'>, format: WireFormat, request: InlinedBody, ids: readonly string[], auth: Pick<AuthContext, 'account' | 'key'>): Promise<InlinedBody> {
  const accountId = auth.account.id;
  const face = getFormat(format).storedFiles!;
  const limit = deps.config.server.bodyLimits.inference;
  const now = deps.clock.now();
  let size = request.raw.length;
  // One after another, stopping at the first missing: a body may name as many ids as its bytes
  // allow, and a read each (a query on PostgreSQL) of made-up ones must not come all at once.
  // Each file is read once, but counted once per part that names it: each of them carries it.
  const records = new Map<string, FileRecord>();
  const unknown = new Set<string>();
  for (const id of ids) {
    if (unknown.has(id)) continue;
    let record = records.get(id);
    if (!record) {
      record = await deps.store.files.get(accountId, id);
      if (!record || isFileExpired(record, now)) {
        const refusal = face.missing(id);
        if (refusal) throw refusal;
        // The gateway's own file, gone (a conversation's earlier turn names it): answered here, not sent on as the upstream's.
        if (record || (await deps.store.files.wasDeleted(accountId, id))) throw fileGone(id, record !== undefined);
        // Not the gateway's: left as written for the upstream.
        unknown.add(id);
        continue;
      }
      if (auth.key.endpoints && !auth.key.endpoints.includes('files')) throw filesOutOfScope(auth.key.endpoints, id);
      records.set(id, record);
    }
    size += Math.ceil(record.bytes / 3) * 4;
    if (size > limit) {
      throw new GatewayError('request_too_large', `The request with its uploaded files inline would be ${size} bytes or more; a request may carry at most ${limit} (server.bodyLimits.inference), as with inline data.`);
    }
  }
  if (records.size === 0) return request;
  // The contents, their base64 and the body's text are built here: held as a client's body of that size is while parsed.
  deps.bodyBudget?.take(size);
  try {
    const files = new Map<string, InlineFile>();
    for (const record of records.values()) {
      const content = await deps.store.files.content(accountId, record.id);
      if (!content) throw face.missing(record.id) ?? new GatewayError('file_not_found', `No file with id '${record.id}'.`);
      const file: InlineFile = { mimeType: record.mimeType ?? mimeOfFilename(record.filename) ?? 'application/octet-stream', data: content.toString('base64') };
      if (record.filename !== '') file.filename = record.filename;
      files.set(record.id, file);
    }
    const body = face.inline(request.body, files);
    return { body, raw: JSON.stringify(body) };
  } finally {
    deps.bodyBudget?.give(size);
  }
}

/** The 404 of a file the gateway issued that is gone: what `/v1/files/{id}` answers for it, saying why. */
function fileGone(id: string, expired: boolean): GatewayError {
  return new GatewayError('file_not_found', `The file '${id}' named in this request (or in the conversation it continues) ${expired ? 'has expired' : 'was deleted'}; upload it again and name the new id.`, {
    details: { file_id: id },
  });
}

/** The 403 of a key scoped away from `files` that names one of the account's files in a prompt (the same refusal as on `/v1/files`). */
function filesOutOfScope(allowed: readonly string[], id: string): GatewayError {
  return new GatewayError('authorization_error', `This API key may not read the account's files (the request names '${id}'); it is scoped to: ${allowed.join(', ')}. Use a key whose endpoints include files.`, {
    details: { endpoint: 'files', allowed_endpoints: allowed },
  });
}
