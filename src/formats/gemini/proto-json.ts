import { setOwn as put } from '../../util/index.ts';
import { isRecord } from '../shared/index.ts';

/**
 * Google's API reads its JSON as proto3 JSON, which takes every field by its lowerCamelCase
 * name or by its original snake_case one: Google's own REST examples write `system_instruction`,
 * `inline_data`, `mime_type`, `generation_config`. The decoder reads lowerCamelCase, so a body is
 * camelised first; without it a converted request lost its system instruction and generation
 * settings (unknown top-level fields) and its snake_case parts were refused.
 *
 * Only field names are renamed, never data: function call arguments, function responses, JSON
 * schemas and labels are the client's own (a tool's `city_name` parameter stays as written), and
 * so are the property names of an OpenAPI `Schema` (its own fields such as `any_of` are renamed).
 * Where both spellings are present, the lowerCamelCase one is kept. Unchanged parts of the body
 * are returned as they are (no copy for a body that is already lowerCamelCase).
 */
export function camelizeGeminiBody(body: Record<string, unknown>): Record<string, unknown> {
  return message(body) as Record<string, unknown>;
}

/**
 * The name a field goes by in `object`: its lowerCamelCase one, else its snake_case one when
 * only that is there. What billing and routing read of a passthrough (never camelised: its
 * bytes go as written) reads a field by this, or a snake_case body escaped its output cap, its
 * system instruction's share of the input bound and its googleSearch's routing.
 */
export function protoName(object: Record<string, unknown>, camel: string, snake: string): string {
  return object[camel] === undefined && object[snake] !== undefined ? snake : camel;
}

/** Values that are the client's own data, never renamed. */
const OPAQUE = new Set(['args', 'response', 'parametersJsonSchema', 'responseJsonSchema', 'labels', 'partMetadata', 'example', 'default']);
/** Fields holding an OpenAPI `Schema` (renamed as one: its `properties` keys are names, not fields). */
const SCHEMAS = new Set(['parameters', 'responseSchema']);

/** A proto field's snake_case name (`system_instruction`, `max_output_tokens`); `__proto__`, `_x` or `x_` are not. */
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A proto message (or a list of them): its field names camelised, its values by what they are. */
function message(value: unknown): unknown {
  return each(value, (object) => renamed(object, (name, v) => (OPAQUE.has(name) ? v : SCHEMAS.has(name) ? schema(v) : message(v))));
}

/** An OpenAPI Schema: its own fields renamed; the names in `properties` kept, their schemas renamed. */
function schema(value: unknown): unknown {
  return each(value, (object) =>
    renamed(object, (name, v) => {
      if (name === 'properties') return isRecord(v) ? mapValues(v, schema) : v;
      if (name === 'items' || name === 'anyOf') return schema(v);
      return v;
    }),
  );
}

/** `f` on an object, or on each object of a list; the same list when nothing changed. */
function each(value: unknown, f: (object: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (isRecord(value)) return f(value);
  if (!Array.isArray(value)) return value;
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i += 1) {
    const item = value[i];
    const next = isRecord(item) ? f(item) : item;
    if (next !== item) (out ??= value.slice())[i] = next;
  }
  return out ?? value;
}

/** The object with its snake_case field names camelised and its values mapped; itself when nothing changed. */
function renamed(object: Record<string, unknown>, valueOf: (name: string, value: unknown) => unknown): Record<string, unknown> {
  const keys = Object.keys(object);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const name = key.includes('_') && SNAKE.test(key) ? camel(key) : key;
    if (name !== key && Object.hasOwn(object, name)) {
      out ??= copyOf(object, keys, i); // both spellings: the lowerCamelCase one stays
      continue;
    }
    const value = object[key];
    const next = valueOf(name, value);
    if (out === undefined && name === key && next === value) continue;
    out ??= copyOf(object, keys, i);
    put(out, name, next);
  }
  return out ?? object;
}

function mapValues(object: Record<string, unknown>, f: (value: unknown) => unknown): Record<string, unknown> {
  const keys = Object.keys(object);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i += 1) {
    const value = object[keys[i]];
    const next = f(value);
    if (out === undefined && next === value) continue;
    out ??= copyOf(object, keys, i);
    put(out, keys[i], next);
  }
  return out ?? object;
}

/** A new object with the first `count` fields of `object`. */
function copyOf(object: Record<string, unknown>, keys: string[], count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 1) put(out, keys[i], object[keys[i]]);
  return out;
}
