import { quotedFinder } from '../../util/index.ts';

/**
 * Most records of a Chat stream are one shape: the response's envelope (id, object, created,
 * model, …), then `"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}]`.
 * JSON.parse of each costs ~2 µs (every envelope string is allocated again) and is most of what a
 * converted stream costs. This reads such a record's text from its JSON text alone, exactly as
 * JSON.parse would, when its envelope is the same text as one already parsed and checked
 * (`captureEnvelope`); anything else (another shape, spacing, an escape the reader does not
 * know, a key it would have to judge) is left to JSON.parse by answering undefined. The finish
 * chunk (`"delta":{}` and a `finish_reason`) is read the same way (`readFinishChunk`), and of the
 * usage chunk only its `usage` object goes to JSON.parse (`readUsageChunk`).
 */

const findChoices = quotedFinder('"choices":[');
const findUsage = quotedFinder('"usage"');
const findError = quotedFinder('"error"');
const HEAD = '"choices":[{"index":0,"delta":{"content":"';
const TAIL = '},"logprobs":null,"finish_reason":null}]';
const FINISH_HEAD = '"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"';
const FINISH_TAIL = '"}]';
const USAGE_HEAD = '"choices":[],"usage":{';
const QUOTE = 34;
const BACKSLASH = 92;

/**
 * A captured envelope, and the start of each chunk shape read here (the envelope and its choices'
 * head as one text): whether a chunk is of a shape is one compare of its start, not a compare of
 * the envelope and then a search for the head (~30 ns less per chunk on Node 20).
 */
export interface ChunkEnvelope {
  readonly text: string;
  readonly content: string;
  readonly finish: string;
  readonly usage: string;
}

/**
 * The envelope of a parsed chunk (its text before `"choices":[`) when later chunks may be read
 * by `readContentChunk`: it must be members of the top-level object (not inside a string or a
 * nested value), end with a comma, and hold no `usage` or `error` key (the decoder reads those).
 */
export function captureEnvelope(data: string): ChunkEnvelope | undefined {
  const at = findChoices(data);
  if (at <= 0 || data.charCodeAt(at - 1) !== 44 /* , */) return undefined;
  const envelope = data.slice(0, at);
  if (findUsage(envelope) !== -1 || findError(envelope) !== -1 || !endsAtTopLevel(envelope)) return undefined;
  return { text: envelope, content: envelope + HEAD, finish: envelope + FINISH_HEAD, usage: envelope + USAGE_HEAD };
}

/** True when `text` is `{` and whole members: after it the next character is a key at depth 1. */
function endsAtTopLevel(text: string): boolean {
  if (text.charCodeAt(0) !== 123 /* { */) return false;
  // No other `{` (the usual envelope: strings and numbers): what the text was cut before, `,"choices":[`
  // in a chunk JSON.parse took, is a key, and its object is the top-level one. One native search
  // instead of a loop over every character (~9k instructions on Node 20).
  if (text.indexOf('{', 1) === -1) return true;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 123 || c === 91) depth += 1;
    else if (c === 125 || c === 93) depth -= 1;
  }
  return depth === 1 && !inString;
}

/** The end (index of the closing quote) of the JSON string whose text starts at `from`, -1 if not a plain string; `escaped` says it holds a `\`. */
function stringEnd(data: string, from: number): { end: number; escaped: boolean } | undefined {
  let escaped = false;
  for (let i = from; i < data.length; i += 1) {
    const c = data.charCodeAt(i);
    if (c === QUOTE) return { end: i, escaped };
    if (c < 32) return undefined; // a raw control character: not JSON
    if (c === BACKSLASH) {
      escaped = true;
      i += 1;
    }
  }
  return undefined;
}

/**
 * What follows the choices: `}` ending the record, or more members first whose values are
 * strings or null (OpenAI's `"obfuscation":"…"`, `"usage":null`), none of them `choices`,
 * `error`, or a `usage` that is not null. True when the record ends there.
 */
function plainRest(data: string, at: number): boolean {
  for (;;) {
    const c = data.charCodeAt(at);
    if (c === 125 /* } */) return at === data.length - 1;
    if (c !== 44 /* , */ || data.charCodeAt(at + 1) !== QUOTE) return false;
    const key = stringEnd(data, at + 2);
    if (!key || key.escaped || data.charCodeAt(key.end + 1) !== 58 /* : */) return false;
    const name = data.slice(at + 2, key.end);
    if (name === 'choices' || name === 'error') return false;
    const value = key.end + 2;
    if (isAt(data, value, 'null')) at = value + 4;
    else if (name !== 'usage' && data.charCodeAt(value) === QUOTE) {
      const text = stringEnd(data, value + 1);
      if (!text || text.escaped) return false;
      at = text.end + 1;
    } else return false;
  }
}

/** True when `pattern` is at `at` in `text`: a native search, several times faster than startsWith with a position on Node 20. */
function isAt(text: string, at: number, pattern: string): boolean {
  return text.indexOf(pattern, at) === at;
}

/** True when `data` starts with `start` (an envelope and a head). */
function startsWith(data: string, start: string): boolean {
  // Equality of a slice is a compare of the two texts; startsWith is slower on Node 20.
  return data.slice(0, start.length) === start;
}

/**
 * The `delta.content` of a plain content chunk whose envelope is `envelope` (see above), or
 * undefined when the record is not one (the decoder then parses it).
 */
export function readContentChunk(data: string, envelope: ChunkEnvelope): string | undefined {
  if (!startsWith(data, envelope.content)) return undefined;
  const from = envelope.content.length;
  const text = stringEnd(data, from);
  if (!text || !isAt(data, text.end + 1, TAIL) || !plainRest(data, text.end + 1 + TAIL.length)) return undefined;
  if (!text.escaped) return data.slice(from, text.end);
  try {
    return JSON.parse(data.slice(from - 1, text.end + 1)) as string;
  } catch {
    return undefined;
  }
}

/**
 * The `finish_reason` of a plain finish chunk whose envelope is `envelope`: one choice with an
 * empty delta, `"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]`, then
 * what a content chunk may have after its choices. Undefined when the record is not one (the
 * decoder then parses it): a finish reason with an escape is left to JSON.parse too.
 */
export function readFinishChunk(data: string, envelope: ChunkEnvelope): string | undefined {
  if (!startsWith(data, envelope.finish)) return undefined;
  const from = envelope.finish.length;
  const reason = stringEnd(data, from);
  if (!reason || reason.escaped || !isAt(data, reason.end, FINISH_TAIL) || !plainRest(data, reason.end + FINISH_TAIL.length)) return undefined;
  return data.slice(from, reason.end);
}

/**
 * The parsed `usage` of a plain usage chunk whose envelope is `envelope`: `"choices":[],"usage":{…}`,
 * then what a content chunk may have after its choices (OpenAI's `obfuscation`). Only the usage
 * object goes to JSON.parse, not the envelope again: its end is the last `}` before what
 * `plainRest` accepts, and JSON.parse takes that text only if it is exactly one object.
 * Undefined when the record is not one (the decoder then parses it whole).
 */
export function readUsageChunk(data: string, envelope: ChunkEnvelope): unknown {
  if (!startsWith(data, envelope.usage)) return undefined;
  const end = data.lastIndexOf('}', data.length - 2) + 1;
  const from = envelope.usage.length - 1; // where the usage object opens
  if (end <= from || !plainRest(data, end)) return undefined;
  try {
    return JSON.parse(data.slice(from, end)) as unknown;
  } catch {
    return undefined;
  }
}
