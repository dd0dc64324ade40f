import type { ChatRequest } from '../../ir/index.ts';
import { encodeTextFormat, encodeToolChoice, encodeTools } from './encode-settings.ts';
import type { ResponseStatus } from './map-status.ts';
import type { WireUsage } from './map-usage.ts';

/** The parts of a response object that change while it is produced. */
export interface ResponseObjectState {
  id: string;
  model: string;
  createdAt: number;
  status: ResponseStatus;
  output: Record<string, unknown>[];
  usage: WireUsage | null;
  error: { code: string; message: string } | null;
  incompleteDetails: { reason: string } | null;
}

/** The §3.4 response object: the state plus the request settings it echoes back. */
export function buildResponseObject(request: ChatRequest, state: ResponseObjectState): Record<string, unknown> {
  const extra = request.extra ?? {};
  const textRest = typeof extra.text === 'object' && extra.text !== null ? extra.text : {};
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    status: state.status,
    background: false,
    error: state.error,
    incomplete_details: state.incompleteDetails,
    instructions: request.system.length > 0 ? request.system.map((part) => part.text).join('\n\n') : null,
    max_output_tokens: request.maxTokens ?? null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: request.previousResponseId ?? null,
    ...(request.conversationId === undefined ? {} : { conversation: { id: request.conversationId } }),
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { ...textRest, format: encodeTextFormat(request.responseFormat) },
    tool_choice: encodeToolChoice(request.toolChoice, extra.tool_choice) ?? 'auto',
    tools: encodeTools(request.tools, extra.hostedTools),
    top_p: request.topP ?? 1,
    truncation: typeof extra.truncation === 'string' ? extra.truncation : 'disabled',
    usage: state.usage,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}
