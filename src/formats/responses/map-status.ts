import type { FinishReason } from '../../ir/index.ts';

export type ResponseStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress' | 'queued' | 'cancelled';

export interface StatusFields {
  status: ResponseStatus;
  incompleteDetails: { reason: string } | null;
}

/** IR finish reason → Responses status + incomplete_details (wire-formats §4.6). */
export function statusForFinish(finishReason: FinishReason): StatusFields {
  switch (finishReason) {
    case 'length':
    // Anthropic's pause_turn: the turn is not finished (OpenAI's reasons are max_output_tokens and content_filter only).
    case 'pause':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
    case 'content_filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
    case 'error':
      return { status: 'failed', incompleteDetails: null };
    default:
      // stop and tool_calls are a completed response; tool calls show as output items.
      return { status: 'completed', incompleteDetails: null };
  }
}

/** Responses status + incomplete_details → IR finish reason; `failed` is an error, not a finish. */
export function finishForStatus(status: string | undefined, incompleteReason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'content_filter' : 'length';
  if (status === 'failed' || status === 'cancelled') return 'error';
  return hasToolCalls ? 'tool_calls' : 'stop';
}
