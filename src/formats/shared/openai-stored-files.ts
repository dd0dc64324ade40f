import type { InlineFile, StoredFilesFace } from '../types.ts';
import { isRecord } from './json.ts';

/**
 * Files uploaded to the gateway (OpenAI's `/v1/files` with `purpose: "user_data"`, or Anthropic's
 * Files API on the same path) that a Chat, Responses or Messages request names by `file_id`. No
 * upstream has them, so the exchange reads the caller's file and the part goes on inline (each
 * format's `fileIdFace` says how). An id the account does not have is left as written: an
 * upstream's own file (one the operator uploaded there), which that upstream judges, as before.
 */

type Part = Record<string, unknown>;

/** The MIME type of a file by its name's extension, for a file uploaded without one (OpenAI's Files API records none). */
export function mimeOfFilename(filename: string): string | undefined {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(filename)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : MIME_BY_EXTENSION[ext];
}

const MIME_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
};

/**
 * Each content part of the given messages or items (their `content` arrays, and a Responses
 * `function_call_output`'s `output` array), and of the parts a part holds (an Anthropic
 * `tool_result`'s `content`), with `f`'s replacement; undefined when none changed.
 */
export function mapContentParts(list: unknown, f: (part: Part) => Part | undefined): unknown[] | undefined {
  if (!Array.isArray(list)) return undefined;
  let changed = false;
  const out = list.map((item: unknown) => {
    if (!isRecord(item)) return item;
    let next = item;
    for (const key of PART_LISTS) {
      const parts = mapParts(item[key], f);
      if (parts) next = { ...next, [key]: parts };
    }
    if (next !== item) changed = true;
    return next;
  });
  return changed ? out : undefined;
}

/** Where an item (a message, a Responses input item) keeps its parts. */
const PART_LISTS = ['content', 'output'] as const;

/** The parts of one list and those their own `content` holds, with `f`'s replacement; undefined when none changed. */
function mapParts(parts: unknown, f: (part: Part) => Part | undefined): unknown[] | undefined {
  if (!Array.isArray(parts)) return undefined;
  let changed = false;
  const out = parts.map((part: unknown) => {
    if (!isRecord(part)) return part;
    const replaced = f(part);
    if (replaced !== undefined) {
      changed = true;
      return replaced;
    }
    const inner = mapParts(part.content, f);
    if (!inner) return part;
    changed = true;
    return { ...part, content: inner };
  });
  return changed ? out : undefined;
}

/** A data URL of an inlined file. */
export function dataUrlOf(file: InlineFile): string {
  return `data:${file.mimeType};base64,${file.data}`;
}

/** The file ids a body's parts name, found by `idOf`, once per part; none when the body's text never writes `file_id`. */
export function findFileIds(list: unknown, raw: string | undefined, idOf: (part: Part) => string | undefined): string[] {
  if (raw !== undefined && !raw.includes('"file_id"')) return [];
  const ids: string[] = [];
  mapContentParts(list, (part) => {
    const id = idOf(part);
    if (id !== undefined) ids.push(id);
    return undefined;
  });
  return ids;
}

/**
 * A stored-files face over the content parts of `listKey`'s messages (Chat's and Anthropic's
 * `messages`, Responses' `input`): the parts `idOf` finds a file id in go on as `inlinePart`
 * makes them; an id the account does not have is left as written (an upstream's own file).
 */
export function fileIdFace(listKey: string, idOf: (part: Part) => string | undefined, inlinePart: (part: Part, file: InlineFile) => Part): StoredFilesFace {
  return {
    find: (body, raw) => findFileIds(body[listKey], raw, idOf),
    inline: (body, files) => {
      const list = mapContentParts(body[listKey], (part) => {
        const id = idOf(part);
        const file = id === undefined ? undefined : files.get(id);
        return file ? inlinePart(part, file) : undefined;
      });
      return list ? { ...body, [listKey]: list } : body;
    },
    missing: () => undefined,
  };
}
