import { readResponsesRequest } from './read-request.ts';
import { capFields } from '../shared/index.ts';
import type { PassthroughRules, RewriteContext, WireRecord } from '../types.ts';

/** Responses events that carry the whole response object, and so its id. */
const RESPONSE_OBJECT_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.completed', 'response.incomplete', 'response.failed']);

/** A lifecycle record with the gateway's response id instead of the upstream's; undefined when it has none. */
function withResponseId(record: WireRecord, context: RewriteContext): WireRecord | undefined {
  const responseId = context.responseId;
  if (responseId === undefined || record.event === undefined || !RESPONSE_OBJECT_EVENTS.has(record.event)) return undefined;
  let payload: { response?: { id?: unknown } };
  try {
    payload = JSON.parse(record.data) as { response?: { id?: unknown } };
  } catch {
    return undefined;
  }
  const response = payload?.response;
  if (!response || typeof response !== 'object' || typeof response.id !== 'string' || response.id === responseId) return undefined;
  response.id = responseId;
  return { event: record.event, data: JSON.stringify(payload) };
}

/** Responses passthrough: a stored answer's stream names the gateway's response id, not the upstream's. */
export const responsesPassthrough: PassthroughRules = { read: readResponsesRequest, capOutput: (body, max) => capFields(body, ['max_output_tokens'], max), rewrite: withResponseId };
