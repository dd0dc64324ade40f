import { MODEL_FIELD, isRecord, requireFields } from '../shared/index.ts';

const INPUT_FIELD = { check: (value: unknown) => typeof value === 'string' || Array.isArray(value), message: 'must be a string or an array of items' };

/**
 * A Responses body's required fields: `model`, and `input` unless `previous_response_id` names
 * the history (`input` is optional in the API: the Agents SDK's compaction session compacts a
 * stored chain with `{model, previous_response_id}` alone, which was a 400 here).
 */
export function requireResponsesBody(body: unknown): Record<string, unknown> & { model: string; input?: string | unknown[] } {
  const chained = isRecord(body) && typeof body.previous_response_id === 'string' && body.previous_response_id !== '' && (body.input === undefined || body.input === null);
  return requireFields(body, chained ? { model: MODEL_FIELD } : { model: MODEL_FIELD, input: INPUT_FIELD }) as Record<string, unknown> & { model: string; input?: string | unknown[] };
}
