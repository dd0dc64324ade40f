import type { ChatRequest, ChatResponse, ContentPart, FinishReason } from '../../ir/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { encodeChatUsage, decodeChatUsage } from '../chat/index.ts';
import { isRecord, nowSeconds, prefixedId, readNumber, readString } from '../shared/index.ts';
import { echoesPrompt, promptOf } from './decode-request.ts';

/** IR → a legacy `finish_reason` (`stop`, `length`, `content_filter`; a tool call cannot happen here; an unfinished `pause` is `length`, as on Chat). */
export function encodeCompletionsFinishReason(reason: FinishReason): string {
  if (reason === 'pause') return 'length';
  return reason === 'length' || reason === 'content_filter' ? reason : 'stop';
}

/** A legacy `finish_reason` → IR (unknown or null → stop). */
export function decodeCompletionsFinishReason(reason: unknown): FinishReason {
  return reason === 'length' || reason === 'content_filter' ? reason : 'stop';
}

/** The answer's text: its text parts, and a refusal (the model's answer all the same). */
function textOf(content: readonly ContentPart[]): string {
  return content.map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : '')).join('');
}

/** IR → a `text_completion` for a client (one choice; `echo` puts the prompt before the text). */
export function encodeCompletionsResponse(response: ChatResponse, request: ChatRequest): Record<string, unknown> {
  const text = (echoesPrompt(request) ? promptOf(request) : '') + textOf(response.content);
  return {
    id: prefixedId('cmpl-', response.id),
    object: 'text_completion',
    created: response.created,
    model: response.model,
    choices: [{ text, index: 0, logprobs: null, finish_reason: encodeCompletionsFinishReason(response.finishReason) }],
    usage: encodeChatUsage(response.usage),
  };
}

/** An upstream `text_completion` → IR. Only the first choice is kept. */
export function decodeCompletionsResponse(body: unknown): ChatResponse {
  if (!isRecord(body) || !Array.isArray(body.choices)) throw new GatewayError('provider_error', 'The upstream returned an invalid text completion.');
  const choice = body.choices.find((item) => isRecord(item) && (item.index ?? 0) === 0);
  const text = isRecord(choice) ? readString(choice, 'text') : undefined;
  return {
    id: readString(body, 'id') ?? '',
    model: readString(body, 'model') ?? '',
    created: readNumber(body, 'created') ?? nowSeconds(),
    content: text ? [{ type: 'text', text }] : [],
    finishReason: decodeCompletionsFinishReason(isRecord(choice) ? choice.finish_reason : undefined),
    usage: decodeChatUsage(body.usage) ?? { inputTokens: 0, outputTokens: 0 },
  };
}
