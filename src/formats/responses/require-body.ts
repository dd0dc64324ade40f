import { GatewayError, validationError } from '../../errors/index.ts';
import { MODEL_FIELD, isRecord, requireFields } from '../shared/index.ts';

const INPUT_FIELD = { check: (value: unknown) => typeof value === 'string' || Array.isArray(value), message: 'must be a string or an array of items' };

/**
 * A Responses body's required fields: `model`, and `input` unless `previous_response_id` names
 * the history or a `prompt` template brings it (`input` is optional in the API: the Agents SDK's
 * compaction session compacts a stored chain with `{model, previous_response_id}` alone, and a
 * template may hold the whole input; both were a 400 here).
 */
export function requireResponsesBody(body: unknown): Record<string, unknown> & { model: string; input?: string | unknown[] } {
  if (isRecord(body) && body.conversation !== undefined && body.conversation !== null) conversationIdOf(body);
  const elsewhere = isRecord(body) && (body.input === undefined || body.input === null) && ((typeof body.previous_response_id === 'string' && body.previous_response_id !== '') || isRecord(body.prompt));
  return requireFields(body, elsewhere ? { model: MODEL_FIELD } : { model: MODEL_FIELD, input: INPUT_FIELD }) as Record<string, unknown> & { model: string; input?: string | unknown[] };
}

/**
 * The conversation a Responses body names (`conversation`: `"conv_…"` or `{id}`, OpenAI's
 * Conversations API, kept by the gateway per account), or undefined. 422 for another shape; 400
 * beside `previous_response_id`, which OpenAI refuses too (the history would come from two places).
 */
export function conversationIdOf(body: Record<string, unknown>): string | undefined {
  const conversation = body.conversation;
  if (conversation === undefined || conversation === null) return undefined;
  const id = typeof conversation === 'string' ? conversation : isRecord(conversation) && typeof conversation.id === 'string' ? conversation.id : undefined;
  if (id === undefined || id === '' || id.length > 200) throw validationError({ conversation: 'must be a conversation id or an object with its id' });
  const previous = body.previous_response_id;
  if (previous !== undefined && previous !== null && previous !== '') {
    throw new GatewayError('bad_request', "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.", { details: { param: 'conversation' } });
  }
  return id;
}
