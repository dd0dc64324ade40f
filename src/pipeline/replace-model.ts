import { jsonStringContent } from '../formats/index.ts';
import { quotedFinder } from '../util/index.ts';

const findModel = quotedFinder('"model"');

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Where the value after the `"model"` key at `at` starts, or -1 when no `:` follows. */
function valueStart(raw: string, at: number): number {
  let i = at + 7; // '"model"'.length
  while (i < raw.length && isJsonSpace(raw.charCodeAt(i))) i += 1;
  if (raw.charCodeAt(i) !== 58 /* : */) return -1;
  i += 1;
  while (i < raw.length && isJsonSpace(raw.charCodeAt(i))) i += 1;
  return i;
}

/** `JSON.stringify(text)` for a string, without the native call when nothing in it is escaped (model ids). */
function quoteJson(text: string): string {
  return `"${jsonStringContent(text)}"`;
}

/**
 * Rewrites the top-level `model` of a JSON body without re-serialising it, so a
 * same-format request goes upstream byte for byte apart from the model id. Falls back
 * to undefined (the caller re-serialises) when the key is not found exactly once.
 * (A scan with indexOf: this runs on every request, and a RegExp built per call costs more.)
 */
export function replaceModelInRaw(raw: string, from: string, to: string): string | undefined {
  if (from === to) return raw;
  const needle = quoteJson(from);
  let match = -1;
  let matchEnd = -1;
  for (let at = findModel(raw); at !== -1; ) {
    const start = valueStart(raw, at);
    if (start !== -1 && raw.startsWith(needle, start)) {
      if (match !== -1) return undefined;
      match = at;
      matchEnd = start + needle.length;
      at = findModel(raw, matchEnd);
    } else at = findModel(raw, at + 1);
  }
  if (match === -1) return undefined;
  return raw.slice(0, match) + `"model":${quoteJson(to)}` + raw.slice(matchEnd);
}
