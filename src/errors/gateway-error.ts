import { ERROR_STATUS, RETRYABLE_CODES, type ErrorCode } from './codes.ts';

export interface GatewayErrorOptions {
  details?: Record<string, unknown>;
  retryAfter?: number;
  /** The wait to the millisecond when it is known that precisely (`retry-after-ms`, which the OpenAI and Anthropic SDKs read first). */
  retryAfterMs?: number;
  cause?: unknown;
  /** Overrides the status derived from the code (e.g. an upstream 529 kept as 503). */
  status?: number;
  headers?: Record<string, string>;
}

/**
 * Error replies quote client input (an id, a model, a field's value), and a client chooses its
 * length: a 45 MB id once made a 90 MB 422. So every error is bounded where it is made: a
 * quoted value ('…') keeps QUOTE_EXCERPT_CHARS, a message MAX_MESSAGE_CHARS, every string in
 * `details` MAX_DETAIL_CHARS, every object and array in it MAX_DETAIL_ENTRIES (docs/limits.md).
 */
export const QUOTE_EXCERPT_CHARS = 64;
export const MAX_MESSAGE_CHARS = 2048;
export const MAX_DETAIL_CHARS = 256;
export const MAX_DETAIL_ENTRIES = 64;

/** `text` cut to `max` characters, saying how much was cut. */
export function excerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** A letter or a digit at `i` (ASCII by its code; a long message may quote megabytes of client input). */
function isWordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i) | 0x20;
  if (text.charCodeAt(i) < 128) return (c >= 0x61 && c <= 0x7a) || (text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39);
  return WORD_CHAR.test(text[i]);
}

/**
 * The next quote mark from `from`: an opening one has no letter or digit before it, a closing one
 * none after it, so the apostrophe of a word ("doesn't", "user's") is neither.
 */
function quoteMark(message: string, from: number, opening: boolean): number {
  for (let at = message.indexOf("'", from); at >= 0; at = message.indexOf("'", at + 1)) {
    const i = opening ? at - 1 : at + 1;
    if (i < 0 || i >= message.length || !isWordChar(message, i)) return at;
  }
  return -1;
}

/** Every '…' quote in `message` cut to QUOTE_EXCERPT_CHARS (a scan: a regex backtracks out of stack on a 45 MB quote). */
function cutQuotes(message: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = quoteMark(message, from, true);
    const close = open < 0 ? -1 : quoteMark(message, open + 1, false);
    if (close < 0) break;
    out += close - open - 1 > QUOTE_EXCERPT_CHARS ? `${message.slice(from, open + 1)}${excerpt(message.slice(open + 1, close), QUOTE_EXCERPT_CHARS)}'` : message.slice(from, close + 1);
    from = close + 1;
  }
  return out + message.slice(from);
}

function boundMessage(message: string): string {
  // Short messages cannot quote much: the common case costs one length check.
  if (message.length <= 2 * QUOTE_EXCERPT_CHARS) return message;
  return excerpt(cutQuotes(message), MAX_MESSAGE_CHARS);
}

/** `value` with every string, array and object bounded; the same value when nothing needed it. */
function boundValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > MAX_DETAIL_CHARS ? excerpt(value, MAX_DETAIL_CHARS) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 6) return '…';
  if (Array.isArray(value)) {
    let changed = value.length > MAX_DETAIL_ENTRIES;
    const items = value.slice(0, MAX_DETAIL_ENTRIES).map((item) => {
      const bounded = boundValue(item, depth + 1);
      if (bounded !== item) changed = true;
      return bounded;
    });
    if (value.length > MAX_DETAIL_ENTRIES) items.push(`… (${value.length - MAX_DETAIL_ENTRIES} more)`);
    return changed ? items : value;
  }
  return boundDetails(value as Record<string, unknown>, depth);
}

function boundDetails(details: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let changed = false;
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const key in details) {
    count += 1;
    if (count > MAX_DETAIL_ENTRIES) {
      changed = true;
      continue;
    }
    const item = details[key];
    const bounded = boundValue(item, depth + 1);
    const boundedKey = key.length > MAX_DETAIL_CHARS ? excerpt(key, MAX_DETAIL_CHARS) : key;
    if (bounded !== item || boundedKey !== key) changed = true;
    // A client's key may be "__proto__": an own property, never the prototype.
    Object.defineProperty(out, boundedKey, { value: bounded, enumerable: true, writable: true, configurable: true });
  }
  if (count > MAX_DETAIL_ENTRIES) out['…'] = `${count - MAX_DETAIL_ENTRIES} more`;
  return changed ? out : details;
}

/**
 * The mark every GatewayError carries, shared through the global symbol registry: a plugin that
 * bundles its own copy of the plugin kit throws errors of another class object, and they must
 * still be read as the gateway's own (vercel/ai and h3 do the same), not as a 500.
 */
const MARK = Symbol.for('gateway.error');

/** The one error type of the gateway: a stable code, a status derived from it, a retryable flag. */
export class GatewayError extends Error {
  /** `value instanceof GatewayError` checks the mark, so an error from another copy of the kit counts (subclasses check their own class). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== GatewayError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return isGatewayError(value);
  }

  readonly [MARK] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly retryAfter?: number;
  readonly retryAfterMs?: number;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(boundMessage(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details && boundDetails(options.details);
    this.retryAfter = options.retryAfter;
    this.retryAfterMs = options.retryAfterMs;
    this.headers = options.headers;
  }

  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.code);
  }
}

/**
 * Spec §8.1: a throttled answer says when to retry (Retry-After and error.retry_after). An error
 * that does not know (an upstream 429 without Retry-After) says 1 s; any other error is returned
 * as it is. For the answer only: retries inside the gateway keep reading what the upstream said.
 */
export function withRetryHint(error: GatewayError): GatewayError {
  if (error.code !== 'rate_limit_exceeded' || error.retryAfter !== undefined) return error;
  return new GatewayError(error.code, error.message, { details: error.details, status: error.status, headers: error.headers, retryAfter: 1, cause: error.cause });
}

/** True for a GatewayError from any copy of the gateway or its plugin kit (the `Symbol.for` mark, not the class). */
export function isGatewayError(value: unknown): value is GatewayError {
  return typeof value === 'object' && value !== null && (value as { [MARK]?: unknown })[MARK] === true;
}

/** What a field checker says of a required field that is absent (`is required`, `is required (a file part)`). */
const REQUIRED = /^is required\b/;

/**
 * Invalid request fields as one error, field path → message under details.fields (spec §7):
 * 422 validation_error; 400 bad_request when a required field is missing (spec §7's 400 row),
 * `details.missing` naming those and `details.fields` still listing every problem.
 */
export function validationError(fields: Record<string, string>, message?: string): GatewayError {
  const entries = Object.entries(fields);
  const missing = entries.filter(([, problem]) => REQUIRED.test(problem)).map(([path]) => path);
  if (missing.length > 0) {
    const names = missing.map((path) => `'${path}'`).join(', ');
    return new GatewayError('bad_request', message ?? `Missing required ${missing.length === 1 ? 'field' : 'fields'} ${names}.`, {
      details: { missing, fields },
    });
  }
  const first = entries[0];
  return new GatewayError('validation_error', message ?? (first ? `Invalid parameter '${first[0]}': ${first[1]}` : 'Invalid parameters'), {
    details: { fields },
  });
}

/** Turns anything thrown into a GatewayError without leaking internals. */
export function toGatewayError(value: unknown): GatewayError {
  if (value instanceof GatewayError) return value;
  return new GatewayError('internal_error', 'An unexpected error occurred.', { cause: value });
}
