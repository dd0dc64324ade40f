import type { ChatRequest, ChatResponse } from '../../ir/index.ts';
import { buildResponseObject } from './build-response-object.ts';
import { compactionItem } from './compaction.ts';
import { responseIdFor } from './create-id.ts';
import { encodeOutputItems } from './encode-output.ts';
import { statusForFinish } from './map-status.ts';
import { encodeUsage } from './map-usage.ts';

/** IR response → the Responses response object a client (and the openai SDK) reads. */
export function encodeResponsesResponse(response: ChatResponse, request: ChatRequest): Record<string, unknown> {
  const { status, incompleteDetails } = statusForFinish(response.finishReason);
  const id = responseIdFor(response.id);
  return buildResponseObject(request, {
    id,
    model: response.model,
    createdAt: response.created,
    status,
    output: request.compaction ? compactionOutput(response) : encodeOutputItems(response.content, status === 'incomplete', request.tools, id),
    usage: encodeUsage(response.usage),
    error: status === 'failed' ? { code: 'server_error', message: 'The response failed.' } : null,
    incompleteDetails,
  });
}

/** A compaction's answer (request.compaction): its text as one `compaction` item, nothing else. */
function compactionOutput(response: ChatResponse): Record<string, unknown>[] {
  const summary = response.content.map((part) => (part.type === 'text' ? part.text : '')).join('').trim();
  return summary ? [compactionItem(summary)] : [];
}
