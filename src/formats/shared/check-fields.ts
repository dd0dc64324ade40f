import { GatewayError, validationError } from '../../errors/index.ts';
import { isRecord } from './json.ts';
import { setOwn } from '../../util/index.ts';

/**
 * Collects invalid request fields (path → message) while a decoder walks a body, so one
 * 422 names every problem at once. Decoders stay lenient about unknown fields.
 */
export class FieldChecker {
  readonly fields: Record<string, string> = {};
  /** True once a field failed (asked of every request: cheaper than counting the keys of `fields`). */
  private failed = false;

  fail(path: string, message: string): void {
    if (path in this.fields) return;
    this.fields[path] = message;
    this.failed = true;
  }

  get ok(): boolean {
    return !this.failed;
  }

  /** Throws the collected problems as one 422 validation_error. */
  throwIfAny(): void {
    if (!this.ok) throw validationError(this.fields);
  }

  string(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.fail(path, 'must be a string');
    return undefined;
  }

  requiredString(value: unknown, path: string): string {
    if (typeof value === 'string') return value;
    this.fail(path, value === undefined || value === null ? 'is required' : 'must be a string');
    return '';
  }

  /** A string of at most `max` UTF-16 units (what `.length` counts), when it is a string at all. */
  maxLength(value: unknown, path: string, max: number): void {
    if (typeof value === 'string' && value.length > max) this.fail(path, `must be at most ${max} characters`);
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.fail(path, 'must be a boolean');
    return undefined;
  }

  number(value: unknown, path: string, range: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(path, 'must be a number');
      return undefined;
    }
    if (range.integer && !Number.isInteger(value)) {
      this.fail(path, 'must be an integer');
      return undefined;
    }
    if (range.min !== undefined && value < range.min) {
      this.fail(path, `must be >= ${range.min}`);
      return undefined;
    }
    if (range.max !== undefined && value > range.max) {
      this.fail(path, `must be <= ${range.max}`);
      return undefined;
    }
    return value;
  }

  record(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (isRecord(value)) return value;
    this.fail(path, 'must be an object');
    return undefined;
  }

  requiredRecord(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value === undefined || value === null) {
      this.fail(path, 'is required');
      return undefined;
    }
    return this.record(value, path);
  }

  array(value: unknown, path: string): unknown[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) return value;
    this.fail(path, 'must be an array');
    return undefined;
  }

  /** A string from a fixed set of values. */
  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.fail(path, `must be one of ${allowed.join(', ')}`);
    return undefined;
  }

  requiredOneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) {
      this.fail(path, 'is required');
      return undefined;
    }
    return this.oneOf(value, path, allowed);
  }

  /** A map of string → string (metadata). */
  stringMap(value: unknown, path: string): Record<string, string> | undefined {
    const record = this.record(value, path);
    if (!record) return undefined;
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(record)) {
      if (typeof item === 'string') out[key] = item;
      else this.fail(`${path}.${key}`, 'must be a string');
    }
    return out;
  }

  /** `string | string[]` (stop sequences) → string[]. */
  stringList(value: unknown, path: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    this.fail(path, 'must be a string or an array of strings');
    return undefined;
  }
}

/** 400 bad_request for a body whose overall shape is wrong (not an object, a required field missing). */
export function badRequest(message: string): GatewayError {
  return new GatewayError('bad_request', message);
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * Checks the required fields of a chat-like body (spec §7): not an object, or a required field
 * missing, is 400 `bad_request`; a required field of the wrong type (`"messages": "text"`) or an
 * empty `model` is 422 `validation_error` naming it in `details.fields`.
 */
export function requireFields(body: unknown, required: Record<string, { check: (value: unknown) => boolean; message: string }>): Record<string, unknown> {
  if (!isRecord(body)) throw badRequest('Request body must be a JSON object.');
  const missing = Object.keys(required).filter((key) => isMissing(body[key]));
  if (missing.length > 0) {
    throw new GatewayError('bad_request', `Missing required field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `'${k}'`).join(', ')}.`, { details: { missing } });
  }
  const fields: Record<string, string> = {};
  for (const [key, rule] of Object.entries(required)) if (!rule.check(body[key])) fields[key] = rule.message;
  if (Object.keys(fields).length > 0) throw validationError(fields);
  return body;
}

/** A non-empty `model` string. */
export const MODEL_FIELD = {
  check: (value: unknown) => typeof value === 'string' && value.length > 0,
  message: 'must be a non-empty string',
};

/**
 * Reads the body as an object with a string `model` and an array at `listKey` (see requireFields).
 * A body of that shape (every request that gets anywhere) is told so without building the rules.
 */
export function requireBodyShape(body: unknown, listKey: string): Record<string, unknown> & { model: string } {
  if (isRecord(body) && MODEL_FIELD.check(body.model) && Array.isArray(body[listKey])) return body as Record<string, unknown> & { model: string };
  const checked = requireFields(body, { model: MODEL_FIELD, [listKey]: { check: Array.isArray, message: 'must be an array' } });
  return checked as Record<string, unknown> & { model: string };
}

/** How many bad items a 422 names at most (a body of a million numbers gets a short answer). */
const MAX_NAMED_ITEMS = 8;

/**
 * Throws a 422 naming the items of `list` (the body's `key`) that are not objects (or strings,
 * when `strings`): a passthrough reader walks them for the input bound and routing, so what it
 * cannot read is refused as the decoder would; unknown roles, types and fields still pass.
 */
export function requireObjectItems(list: readonly unknown[], key: string, options: { strings?: boolean } = {}): void {
  const message = options.strings ? 'must be an object or a string' : 'must be an object';
  const fields: Record<string, string> = {};
  let named = 0;
  for (let index = 0; index < list.length && named < MAX_NAMED_ITEMS; index++) {
    const item = list[index];
    if (isRecord(item) || (options.strings === true && typeof item === 'string')) continue;
    fields[`${key}[${index}]`] = message;
    named += 1;
  }
  if (named > 0) throw validationError(fields);
}

/** Copies the fields of `body` that a decoder did not map into the IR. */
export function collectExtra(body: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  // Object.keys, not Object.entries: the same keys in the same order without a [key, value] array per field (~3x faster).
  const keys = Object.keys(body);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    if (known.has(key)) continue;
    setOwn((extra ??= {}), key, body[key]);
  }
  return extra;
}
