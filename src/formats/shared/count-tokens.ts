import { isRecord } from './json.ts';

/** A positive token count under `key` of an upstream counter's answer; undefined when it did not say. */
export function readCount(answer: unknown, key: string): number | undefined {
  const value = isRecord(answer) ? answer[key] : undefined;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** The members of an encoded request body an upstream counter takes (its count route refuses the others). */
export function pickCounted(body: Record<string, unknown>, keys: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) if (keys.has(key)) out[key] = body[key];
  return out;
}

/** A count body for an upstream counter: the upstream's model id, no stream flag. */
export function countBodyFor(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, model: upstreamModel };
  delete out.stream;
  return out;
}
