import type { ChatRequest, ChatResponse, ProviderMetadata } from '../../ir/index.ts';
import { argumentsForClient, carryOpaque, customToolInput, encodeLogprobs, hasMetadata, logprobsOfParts, isCustomTool, mediaSourceToUrl, pairsCalls, prefixedId, toolIdForClient } from '../shared/index.ts';
import { encodeChatFinishReason } from './map-finish-reason.ts';
import { encodeReasoningDetails, reasoningText } from './map-reasoning.ts';
import { encodeChatUsage } from './map-usage.ts';
import { reasoningParts } from './encode-messages.ts';
import type { ChatToolCall } from './types.ts';
import { encodeChatAnnotation } from './map-web-search.ts';

/**
 * IR → a Chat Completions response for a client. Reasoning goes in `reasoning_content` (text,
 * per the spec) and `reasoning_details` (OpenRouter style, carrying Anthropic signatures and
 * redacted data so the client can send them back byte-exact); none of it when the request said
 * OpenRouter's `reasoning.exclude`.
 */
export function encodeChatResponse(answer: ChatResponse, request: ChatRequest): Record<string, unknown> {
  const response = request.excludeReasoning ? { ...answer, content: answer.content.filter((part) => part.type !== 'reasoning') } : answer;
  const text: string[] = [];
  const refusal: string[] = [];
  const calls: ChatToolCall[] = [];
  const annotations: Record<string, unknown>[] = [];
  const images: Record<string, unknown>[] = [];
  let offset = 0;
  const paired = pairsCalls(response);
  for (const part of response.content) {
    if (part.type === 'text') {
      for (const citation of part.citations ?? []) annotations.push(encodeChatAnnotation(citation, offset, part.text.length));
      text.push(part.text);
      offset += part.text.length;
    }
    else if (part.type === 'refusal') refusal.push(part.refusal);
    else if (part.type === 'image') {
      const url = mediaSourceToUrl(part.source);
      if (url !== undefined) images.push(chatImage(url, images.length, part.providerMetadata));
    }
    else if (part.type === 'tool_call') {
      const id = toolIdForClient(part.id, part.providerMetadata, paired ? part.itemId : undefined);
      if (isCustomTool(part.name, request.tools)) calls.push({ id, type: 'custom', custom: { name: part.name, input: customToolInput(part.arguments) } });
      else calls.push({ id, type: 'function', function: { name: part.name, arguments: argumentsForClient(part.arguments) } });
    }
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : null,
    refusal: refusal.length > 0 ? refusal.join('') : null,
  };
  const reasoning = reasoningParts(response.content);
  if (reasoning.length > 0) {
    const readable = reasoningText(reasoning);
    if (readable !== undefined) message.reasoning_content = readable;
    message.reasoning_details = encodeReasoningDetails(reasoning);
  }
  if (calls.length > 0) message.tool_calls = calls;
  if (annotations.length > 0) message.annotations = annotations;
  if (images.length > 0) message.images = images;
  return {
    id: prefixedId('chatcmpl-', response.id),
    object: 'chat.completion',
    created: response.created,
    model: response.model,
    choices: [{ index: 0, message, logprobs: choiceLogprobs(response.content), finish_reason: encodeChatFinishReason(response.finishReason) }],
    usage: encodeChatUsage(response.usage),
  };
}

/** The answer's token log probabilities as a choice's `logprobs` (`null` when none were asked for or given). */
function choiceLogprobs(content: ChatResponse['content']): Record<string, unknown> | null {
  const logprobs = logprobsOfParts(content);
  return logprobs ? { content: encodeLogprobs(logprobs), refusal: null } : null;
}

/**
 * An image the model made, as OpenRouter (and Vercel's AI gateway, LiteLLM) put it beside the
 * content: `message.images[]` (`delta.images[]` in a stream), a data URL in `image_url.url`. Its
 * provider metadata (a Gemini 3 image model's thought signature) rides as the entry's carried
 * `signature` (shared/carry-opaque.ts), which comes back with the image on the next turn.
 */
export function chatImage(url: string, index: number, metadata?: ProviderMetadata): Record<string, unknown> {
  const image: Record<string, unknown> = { type: 'image_url', image_url: { url }, index };
  if (hasMetadata(metadata)) image.signature = carryOpaque({ metadata });
  return image;
}
