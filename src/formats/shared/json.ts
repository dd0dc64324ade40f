/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON.parse that returns undefined instead of throwing. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A string field of an untrusted object, or undefined. */
export function readString(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

/** A finite number field of an untrusted object, or undefined. */
export function readNumber(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A nested object field of an untrusted object, or undefined. */
export function readRecord(record: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = record[key];
  return isRecord(value) ? value : undefined;
}

/** Sets an optional field only when it has a value, keeping built objects free of `undefined` keys. */
export function assignDefined<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

/** Longest text checked by hand for escapes: past it JSON.stringify's native scan costs less than the loop. */
const HAND_CHECKED = 256;

/**
 * True when JSON.stringify writes `text` as it is between two quotes: no `"`, `\`, control
 * character or surrogate (a lone one is escaped; a pair is not, but is left to JSON.stringify).
 */
function isPlainJsonText(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/**
 * What JSON.stringify writes of a string between its quotes: the text itself when nothing in it
 * is escaped, for a template to put in quotes without the native call. A stream's records are
 * mostly a few words each, and the call (~1.5k instructions) costs more than the words.
 */
export function jsonStringContent(text: string): string {
  return text.length <= HAND_CHECKED && isPlainJsonText(text) ? text : JSON.stringify(text).slice(1, -1);
}
