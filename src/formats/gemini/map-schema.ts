import { isRecord } from '../shared/index.ts';

/**
 * Gemini's `Schema` (an OpenAPI 3.0 subset: upper-case `type`, `nullable`, `propertyOrdering`)
 * → JSON Schema, for a target that speaks JSON Schema. Keys are walked, values are not touched.
 */
export function schemaToJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && isRecord(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isRecord(sub) ? schemaToJsonSchema(sub) : sub]));
    else if ((key === 'items' || key === 'not') && isRecord(value)) out[key] = schemaToJsonSchema(value);
    else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) out[key] = value.map((sub) => (isRecord(sub) ? schemaToJsonSchema(sub) : sub));
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}
