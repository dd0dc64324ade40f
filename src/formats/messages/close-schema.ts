import { isRecord } from '../shared/index.ts';

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions'];

/**
 * A JSON schema for Anthropic's structured output (`output_config.format`): every object schema
 * that leaves `additionalProperties` unsaid gets `false`, which Anthropic requires ("For 'object'
 * type, 'additionalProperties' must be explicitly set to false"; its SDK's zodOutputFormat writes
 * it). A Gemini client's `responseSchema` (no such keyword) and a Chat or Responses client's
 * non-strict schema leave it out, so Anthropic refused them with a 400. Closing an object only
 * narrows the answers: every one still fits the client's schema. An explicit value is kept (the
 * upstream says what it thinks of it). A copy; the request's schema is not changed.
 */
export function closeObjectSchemas(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isRecord(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, isRecord(sub) ? closeObjectSchemas(sub) : sub]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((sub) => (isRecord(sub) ? closeObjectSchemas(sub) : sub));
  }
  if (isRecord(out.items)) out.items = closeObjectSchemas(out.items);
  if (isRecord(out.additionalProperties)) out.additionalProperties = closeObjectSchemas(out.additionalProperties);
  const type = out.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && isRecord(out.properties));
  if (isObject && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
