import type { z } from 'zod';
import { validationError } from '../../errors/index.ts';

/** `['input', 2, 'call_id']` → `input[2].call_id`, the field path style of spec §7. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out.length === 0 ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Parses with a zod schema; on failure throws a 422 naming every offending field under `prefix`. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, prefix: ReadonlyArray<PropertyKey>): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const path = fieldPath([...prefix, ...issue.path]) || 'body';
    fields[path] ??= issue.message;
  }
  throw validationError(fields);
}

/** Throws a 422 for one field. */
export function invalid(path: ReadonlyArray<PropertyKey>, message: string): never {
  throw validationError({ [fieldPath(path)]: message });
}
