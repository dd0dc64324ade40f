/**
 * One JSONL line of the usage ledger (or the settlement outbox), built by hand: one is written
 * per settled request, and JSON.stringify's scan of every character of every key and value for
 * escapes was most of what a line cost. The text parses to what JSON.stringify's would, with
 * `seq` first (a torn line's salvage reads it from the front); whatever is not plain text, a
 * number or a boolean goes through JSON.stringify, the whole line when anything could differ.
 */

/** Text that goes between quotes as it is: printable ASCII but `"` and `\` (JSON escapes nothing else in it). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `,"key":` per key seen: a line has the same dozen or so keys every time, and a lookup costs less than checking one. */
const keyParts = new Map<string, string>();
/** Keys are the store's field names; the bound only keeps odd callers from growing the cache. */
const MAX_KEYS = 256;

/** Stands for "this line is JSON.stringify's" (a value whose text could depend on where it is). */
const WHOLE = null;

/** The ledger line of `entry` (`seq` first, then its other own keys in order), ending in one '\n'. */
export function encodeLedgerLine(entry: { readonly seq: number }): string {
  // A toJSON decides the whole text.
  if ('toJSON' in entry) return stringifyLine(entry);
  const seq = valueText(entry.seq);
  if (seq === WHOLE || seq === undefined) return stringifyLine(entry);
  let line = `{"seq":${seq}`;
  for (const key in entry) {
    // JSON leaves inherited keys out. In a for-in over the same object V8 answers this form from the loop's own key list, with no call (Object.hasOwn is a call per key).
    if (key === 'seq' || !Object.prototype.hasOwnProperty.call(entry, key)) continue;
    const text = valueText((entry as Record<string, unknown>)[key]);
    if (text === WHOLE) return stringifyLine(entry);
    if (text !== undefined) line += keyPart(key) + text;
  }
  return `${line}}\n`;
}

/** A value's JSON text; undefined when JSON leaves its key out; WHOLE when only JSON.stringify of the line is sure to be right. */
function valueText(value: unknown): string | undefined | typeof WHOLE {
  switch (typeof value) {
    case 'string':
      return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
    case 'number':
      // JSON writes a finite number as String does (-0 as 0 too), and NaN or ±Infinity as null.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'object':
      // A nested record (media units) is the same text on its own, unless a toJSON is told its key.
      return value === null ? 'null' : 'toJSON' in value ? WHOLE : JSON.stringify(value);
    default:
      // A bigint (a TypeError, or its toJSON) or a function (left out, or its toJSON).
      return WHOLE;
  }
}

function keyPart(key: string): string {
  let part = keyParts.get(key);
  if (part === undefined) {
    part = `,${JSON.stringify(key)}:`;
    if (keyParts.size < MAX_KEYS) keyParts.set(key, part);
  }
  return part;
}

function stringifyLine(entry: { readonly seq: number }): string {
  if ('toJSON' in entry) return `${JSON.stringify(entry)}\n`;
  // A copy puts seq first (the spread gives it its value again, in the same place).
  const fields: object = entry;
  return `${JSON.stringify({ seq: entry.seq, ...fields })}\n`;
}
