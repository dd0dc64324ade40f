import type { FinishReason } from '../../ir/index.ts';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'LANGUAGE']);
const FAILED = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'IMAGE_OTHER', 'NO_IMAGE']);

/**
 * A Gemini `finishReason` → IR. Gemini has no "tool calls" reason (a turn with `functionCall`
 * parts ends `STOP`), so `hasToolCalls` decides; a blocked prompt (`promptFeedback.blockReason`,
 * no candidate) is a content filter.
 */
export function decodeGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  if (reason !== undefined && FAILED.has(reason)) return 'error';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** IR → a Gemini `finishReason` (tool calls end `STOP`, as Gemini's own; Anthropic's unfinished `pause_turn` is `MAX_TOKENS`). */
export function encodeGeminiFinishReason(reason: FinishReason): string {
  switch (reason) {
    case 'length':
    case 'pause':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'error':
      return 'OTHER';
    default:
      return 'STOP';
  }
}

/**
 * Gemini's finish reasons for a turn whose function calling failed (a call it could not write,
 * one to a tool not declared, too many): the answer holds no call and the turn is lost. Another
 * format has no such finish (Messages would read `end_turn`, an empty answer Claude Code ends on
 * as if done), so a converted client gets it as the upstream's error (decode-response,
 * decode-stream), Gemini's `finishMessage` its message; a Gemini client passed through reads it as is.
 */
const FAILED_CALLS = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/** The message of a failed function-calling turn (FAILED_CALLS), undefined for any other finish. */
export function failedCallMessage(reason: string | undefined, finishMessage: unknown): string | undefined {
  if (reason === undefined || !FAILED_CALLS.has(reason)) return undefined;
  return typeof finishMessage === 'string' && finishMessage !== '' ? `${reason}: ${finishMessage}` : `The model's function call failed (${reason}).`;
}
