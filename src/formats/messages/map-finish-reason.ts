import type { FinishReason } from '../../ir/index.ts';
import type { MessagesStopReason } from './types.ts';

/** Anthropic `stop_reason` → IR (wire-formats §4.6; unknown or null → stop). */
export function decodeMessagesStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'pause_turn':
      return 'pause';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * The finish a Messages client reads: an answer that ended normally with a refusal in it (OpenAI's
 * `refusal` field or part, whose finish is `stop`) is Anthropic's refusal, `stop_reason: "refusal"`
 * with its `stop_details`, as Claude answers a refused request. Before, it read `end_turn` with the
 * refusal as plain text, which a structured-output client (`messages.parse`) took for its JSON.
 */
export function refusalFinish(reason: FinishReason, refused: boolean): FinishReason {
  return reason === 'stop' && refused ? 'content_filter' : reason;
}

/** IR → Anthropic `stop_reason`; a known stop sequence makes `stop` read `stop_sequence`. */
export function encodeMessagesStopReason(reason: FinishReason, stopSequence?: string | null): MessagesStopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'pause':
      return 'pause_turn';
    default:
      return stopSequence ? 'stop_sequence' : 'end_turn';
  }
}

/**
 * IR → Anthropic `stop_details`, which the API writes on every answer (SDK type `RefusalStopDetails | null`):
 * a refusal's (its category is not known on a converted route), else null.
 */
export function encodeMessagesStopDetails(reason: FinishReason): { type: 'refusal'; category: null; explanation: null } | null {
  return reason === 'content_filter' ? { type: 'refusal', category: null, explanation: null } : null;
}
