/** Cheap scans of JSON text that never parse it: they run on every record of every stream. */

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** The index of the first non-whitespace character, or -1. */
export function firstSignificant(data: string): number {
  for (let i = 0; i < data.length; i += 1) if (!isSpace(data.charCodeAt(i))) return i;
  return -1;
}

/** The index of the last non-whitespace character, or -1. */
export function lastSignificant(data: string): number {
  for (let i = data.length - 1; i >= 0; i -= 1) if (!isSpace(data.charCodeAt(i))) return i;
  return -1;
}

/** True when `data`, trimmed, is exactly `word` (e.g. Chat's `[DONE]`). */
export function isBareWord(data: string, word: string): boolean {
  const start = firstSignificant(data);
  return start !== -1 && data.startsWith(word, start) && lastSignificant(data) === start + word.length - 1;
}

/** True when `data` looks like one JSON object (`{…}` after trimming); a cut or garbage record does not. */
export function looksLikeObject(data: string): boolean {
  const start = firstSignificant(data);
  return start !== -1 && data.charCodeAt(start) === 123 /* { */ && data.charCodeAt(lastSignificant(data)) === 125 /* } */;
}

/** True when the first key of the object in `data` is `key` (e.g. `"error"`), spacing aside. */
export function startsWithKey(data: string, quotedKey: string): boolean {
  const start = firstSignificant(data);
  if (start === -1 || data.charCodeAt(start) !== 123) return false;
  let i = start + 1;
  while (i < data.length && isSpace(data.charCodeAt(i))) i += 1;
  return data.startsWith(quotedKey, i);
}
