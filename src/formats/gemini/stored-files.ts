import { GatewayError } from '../../errors/index.ts';
import { isRecord } from '../shared/index.ts';
import type { InlineFile } from '../types.ts';
import { protoName as spelling } from './proto-json.ts';

/**
 * A `fileData.fileUri` naming a file uploaded to the gateway (its Files API answers
 * `uri: <gateway>/v1beta/files/{id}`; `files/{id}` is the File's `name`). No upstream can read
 * one: the exchange reads the file and the part goes on as `inlineData` (docs/batches.md).
 * Google's own URIs (`https://generativelanguage.googleapis.com/…`) and anything else
 * (`gs://`, a YouTube URL) are left for a Gemini upstream as written.
 */
const OWN_URI = /^(?:[a-z][a-z0-9+.-]*:\/\/([^/?#]+)(?:\/[^?#]*)?\/v1beta\/)?files\/([A-Za-z0-9_-]{1,128})$/;
const GOOGLE_HOST = /(?:^|\.)googleapis\.com(?::\d+)?$/i;

/** The gateway file id a `fileUri` names, or undefined when it is not one of the gateway's. */
export function storedFileId(uri: string): string | undefined {
  const match = OWN_URI.exec(uri);
  if (!match || (match[1] !== undefined && GOOGLE_HOST.test(match[1]))) return undefined;
  return match[2];
}

type Part = Record<string, unknown>;

/** Each part of the body's contents, and of their function responses (Gemini 3's multimodal results), with `f`'s replacement. */
function mapParts(body: Record<string, unknown>, f: (part: Part) => Part | undefined): Record<string, unknown> | undefined {
  const contents = body.contents;
  if (!Array.isArray(contents)) return undefined;
  let changed = false;
  const mapList = (parts: unknown): unknown => {
    if (!Array.isArray(parts)) return parts;
    let local = false;
    const out = parts.map((part: unknown) => {
      if (!isRecord(part)) return part;
      let next = f(part) ?? part;
      const key = spelling(next, 'functionResponse', 'function_response');
      const response = next[key];
      if (isRecord(response)) {
        const inner = mapList(response.parts);
        if (inner !== response.parts) next = { ...next, [key]: { ...response, parts: inner } };
      }
      if (next !== part) local = true;
      return next;
    });
    if (!local) return parts;
    changed = true;
    return out;
  };
  const mapped = contents.map((content: unknown) => {
    if (!isRecord(content)) return content;
    const parts = mapList(content.parts);
    return parts === content.parts ? content : { ...content, parts };
  });
  return changed ? { ...body, contents: mapped } : undefined;
}

/** The part's `fileData` (or `file_data`) and the id of the gateway file it names, if it names one. */
function ownFileData(part: Part): { key: string; id: string; mimeType: string } | undefined {
  const key = spelling(part, 'fileData', 'file_data');
  const data = part[key];
  if (!isRecord(data)) return undefined;
  const uri = data[spelling(data, 'fileUri', 'file_uri')];
  const id = typeof uri === 'string' ? storedFileId(uri) : undefined;
  if (id === undefined) return undefined;
  const mimeType = data[spelling(data, 'mimeType', 'mime_type')];
  return { key, id, mimeType: typeof mimeType === 'string' ? mimeType : '' };
}

/**
 * The gateway files a Gemini request names in `fileData` parts, once per part (a file two parts
 * name goes inline twice, and counts twice against the body limit). A body whose text never
 * writes `files/` is not walked (every passthrough request runs this).
 */
export function findStoredFiles(body: Record<string, unknown>, raw?: string): string[] {
  if (raw !== undefined && !raw.includes('files/')) return [];
  const ids: string[] = [];
  mapParts(body, (part) => {
    const own = ownFileData(part);
    if (own) ids.push(own.id);
    return undefined;
  });
  return ids;
}

/**
 * The body with each `fileData` part naming one of `files` as an `inlineData` part of its
 * contents (the part's own `mimeType`, else the file's), its other fields (`videoMetadata`, a
 * `thoughtSignature`) kept. A copy; the parts around it are the client's as written.
 */
export function inlineStoredFiles(body: Record<string, unknown>, files: ReadonlyMap<string, InlineFile>): Record<string, unknown> {
  return (
    mapParts(body, (part) => {
      const own = ownFileData(part);
      const file = own && files.get(own.id);
      if (!own || !file) return undefined;
      const out: Part = {};
      for (const [key, value] of Object.entries(part)) {
        if (key === own.key) out.inlineData = { mimeType: own.mimeType || file.mimeType, data: file.data };
        else out[key] = value;
      }
      return out;
    }) ?? body
  );
}

/** Google's answer for a file the caller cannot read, its own or missing alike: 403 PERMISSION_DENIED. */
export function storedFileMissing(id: string): GatewayError {
  return new GatewayError('file_not_found', `You do not have permission to access the File ${id} or it may not exist.`, { status: 403 });
}
