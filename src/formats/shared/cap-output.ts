/** A same-format body with its output cap lowered to a model's maximum, and what was changed (`X-Gateway-Adapted`). */
export interface CappedBody {
  body: Record<string, unknown>;
  adapted: string[];
}

/** `fields` (a format's output-cap fields) above `max` lowered to it, in a copy; undefined when none is. */
export function capFields(body: Record<string, unknown>, fields: readonly string[], max: number): CappedBody | undefined {
  const over = fields.filter((field) => typeof body[field] === 'number' && (body[field] as number) > max);
  if (over.length === 0) return undefined;
  const copy = { ...body };
  for (const field of over) copy[field] = max;
  return { body: copy, adapted: over.map((field) => `${field}=${max}`) };
}
