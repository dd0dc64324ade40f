import { GatewayError } from '../../errors/index.ts';
import { MODEL_FIELD, isRecord, requireFields } from '../shared/index.ts';

const INPUT_FIELD = { check: (value: unknown) => typeof value === 'string' || Array.isArray(value), message: 'must be a string or an array of items' };

/**
 * A Responses body's required fields: `model`, and `input` unless `previous_response_id` names
 * the history or a `prompt` template brings it (`input` is optional in the API: the Agents SDK's
 * compaction session compacts a stored chain with `{model, previous_response_id}` alone, and a
 * template may hold the whole input; both were a 400 here).
 */
export function requireResponsesBody(body: unknown): Record<string, unknown> & { model: string; input?: string | unknown[] } {
  if (isRecord(body) && body.conversation !== undefined && body.conversation !== null) throw conversationNotFound(body.conversation);
  const elsewhere = isRecord(body) && (body.input === undefined || body.input === null) && ((typeof body.previous_response_id === 'string' && body.previous_response_id !== '') || isRecord(body.prompt));
  return requireFields(body, elsewhere ? { model: MODEL_FIELD } : { model: MODEL_FIELD, input: INPUT_FIELD }) as Record<string, unknown> & { model: string; input?: string | unknown[] };
}

/**
 * `conversation` (OpenAI's Conversations API): the gateway keeps none, so no id names one here, as OpenAI answers an id
 * it does not have (404). Forwarding it would let any key read and extend the operator's own conversations at OpenAI;
 * ignoring it would drop the history the client counts on. docs/api-decisions.md.
 */
function conversationNotFound(conversation: unknown): GatewayError {
  const id = typeof conversation === 'string' ? conversation : isRecord(conversation) && typeof conversation.id === 'string' ? conversation.id : undefined;
  return new GatewayError(
    'not_found',
    `${id === undefined ? 'No conversation' : `Conversation with id '${id.slice(0, 128)}'`} found: this gateway does not serve OpenAI's Conversations API. Chain turns with previous_response_id (the gateway stores responses for your account) or send the history in input.`,
    { details: { param: 'conversation' } },
  );
}
