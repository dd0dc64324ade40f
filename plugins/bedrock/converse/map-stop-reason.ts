// Converse `stopReason` ↔ IR finish reason.
import type { FinishReason } from 'gateway/plugin-kit';

const DECODE: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  // The model's output or a tool call it wrote could not be read: no finished answer.
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
};

export function decodeConverseStopReason(reason: unknown): FinishReason {
  return (typeof reason === 'string' && DECODE[reason]) || 'stop';
}

export function encodeConverseStopReason(reason: FinishReason, stopSequence?: string | null): string {
  switch (reason) {
    case 'tool_calls':
      return 'tool_use';
    case 'length':
    case 'pause':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filtered';
    case 'error':
      return 'malformed_model_output';
    default:
      return stopSequence ? 'stop_sequence' : 'end_turn';
  }
}

/**
 * The message of a turn Bedrock ended because it could not read what the model wrote
 * (`malformed_model_output`, `malformed_tool_use`): no answer is in it. Another format has no such
 * finish (Messages would read `end_turn`, an empty answer Claude Code ends on as if done), so a
 * converted client gets it as the upstream's error. Undefined for any other stopReason.
 */
export function malformedStopMessage(reason: unknown): string | undefined {
  if (reason !== 'malformed_model_output' && reason !== 'malformed_tool_use') return undefined;
  return reason === 'malformed_tool_use' ? 'malformed_tool_use: the model wrote a tool call Bedrock could not read.' : 'malformed_model_output: the model wrote output Bedrock could not read.';
}
