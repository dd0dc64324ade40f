import type { FinishReason } from '../../ir/index.ts';
import type { ChatFinishReason } from './types.ts';

/** Chat `finish_reason` → IR (unknown or null → stop). */
export function decodeChatFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * The stop sequence that ended a choice, where the server names it: vLLM's `stop_reason`, SGLang's
 * `matched_stop` (OpenAI names none). A number there is an end-of-sequence token id, the model's own
 * end, not a stop sequence; only a `stop` finish has one.
 */
export function decodeChatStopSequence(choice: Record<string, unknown>, reason: FinishReason): string | undefined {
  if (reason !== 'stop') return undefined;
  const named = choice.stop_reason ?? choice.matched_stop;
  return typeof named === 'string' && named !== '' ? named : undefined;
}

/**
 * IR → Chat `finish_reason`. `pause` (Anthropic's `pause_turn`: a server-tool turn that is not
 * finished, which only a Messages client can send back to go on) is `length`, Chat's "the answer
 * was cut short"; `error` has no Chat value and reads as `stop`.
 */
export function encodeChatFinishReason(reason: FinishReason): ChatFinishReason {
  switch (reason) {
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'pause':
      return 'length';
    default:
      return 'stop';
  }
}
