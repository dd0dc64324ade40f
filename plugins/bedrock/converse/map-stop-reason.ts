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
