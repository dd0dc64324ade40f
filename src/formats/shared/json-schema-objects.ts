import { isRecord } from './json.ts';

type Schema = Record<string, unknown>;

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions'];

/** True for a schema of an object (`type: "object"`, a type list with it, or bare `properties`). */
function isObjectSchema(schema: Schema): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && isRecord(schema.properties));
}

/** `schema` with every object schema in it (itself, properties, items, unions, definitions) mapped by `fn`, inner ones first; a copy. */
function mapObjectSchemas(schema: Schema, fn: (object: Schema) => Schema): Schema {
  const out: Schema = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isRecord(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, isRecord(sub) ? mapObjectSchemas(sub, fn) : sub]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((sub) => (isRecord(sub) ? mapObjectSchemas(sub, fn) : sub));
  }
  for (const key of ['items', 'additionalProperties']) if (isRecord(out[key])) out[key] = mapObjectSchemas(out[key], fn);
  return isObjectSchema(out) ? fn(out) : out;
}

/**
 * Every object of `schema` that leaves `additionalProperties` unsaid gets `false` (a copy): what
 * Anthropic's structured output requires ("For 'object' type, 'additionalProperties' must be
 * explicitly set to false"). Closing an object only narrows the answers; an explicit value is kept.
 */
export function closeObjectSchemas(schema: Schema): Schema {
  return mapObjectSchemas(schema, (object) => (object.additionalProperties === undefined ? { ...object, additionalProperties: false } : object));
}

/**
 * True when `schema` meets OpenAI's strict mode: every object closed (`additionalProperties:
 * false`) and every property in `required` (OpenAI's 400 otherwise: "'required' is required to be
 * supplied and to be an array including every key in properties").
 */
export function meetsOpenAIStrict(schema: Schema): boolean {
  let meets = true;
  mapObjectSchemas(schema, (object) => {
    const required = Array.isArray(object.required) ? object.required : [];
    const properties = isRecord(object.properties) ? Object.keys(object.properties) : [];
    if (object.additionalProperties !== false || properties.some((key) => !required.includes(key))) meets = false;
    return object;
  });
  return meets;
}

/**
 * A tool's or a response format's `strict` for an OpenAI upstream: true only when its schema meets
 * OpenAI's strict mode. Anthropic's strict tools may leave properties optional, which OpenAI
 * refuses in strict mode (a 400 for a request Anthropic takes); such a schema goes non-strict and
 * the client still checks what it gets.
 */
export function openAIStrict(strict: boolean | undefined, parameters: Schema | undefined): boolean | undefined {
  return strict === true && !meetsOpenAIStrict(parameters ?? {}) ? false : strict;
}
