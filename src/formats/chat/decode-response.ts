import type { ChatResponse, ContentPart, ImagePart } from '../../ir/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { decodeLogprobs, isRecord, nowSeconds, readCarried, readNumber, readString, stringifyToolInput, urlToMediaSource } from '../shared/index.ts';
import { decodeChatFinishReason, decodeChatStopSequence } from './map-finish-reason.ts';
import { decodeChatReasoning, plainReasoningMetadata } from './map-reasoning.ts';
import { decodeChatUsage } from './map-usage.ts';

/** An upstream Chat Completions response → IR. Only the first choice is kept. */
export function decodeChatResponse(body: unknown): ChatResponse {
  if (!isRecord(body) || !Array.isArray(body.choices)) {
    throw new GatewayError('provider_error', 'The upstream returned an invalid chat completion.');
  }
  const choice = body.choices.find(isRecord);
  const message = choice && isRecord(choice.message) ? choice.message : {};
  const finishReason = decodeChatFinishReason(choice?.finish_reason);
  const response: ChatResponse = {
    id: readString(body, 'id') ?? '',
    model: readString(body, 'model') ?? '',
    created: readNumber(body, 'created') ?? nowSeconds(),
    content: withLogprobs(decodeMessageContent(message, readString(body, 'model') ?? ''), choice),
    finishReason,
    usage: decodeChatUsage(body.usage) ?? { inputTokens: 0, outputTokens: 0 },
  };
  const stopSequence = choice && decodeChatStopSequence(choice, finishReason);
  if (stopSequence !== undefined) response.stopSequence = stopSequence;
  return response;
}

/** The choice's `logprobs.content` on its text (one text part: Chat's content is one string). */
function withLogprobs(parts: ContentPart[], choice: Record<string, unknown> | undefined): ContentPart[] {
  const logprobs = choice && isRecord(choice.logprobs) ? decodeLogprobs(choice.logprobs.content) : undefined;
  const text = logprobs && parts.find((part) => part.type === 'text');
  if (text) text.logprobs = logprobs;
  return parts;
}

function decodeMessageContent(message: Record<string, unknown>, model: string): ContentPart[] {
  const parts: ContentPart[] = [...decodeChatReasoning(message)];
  // Plain reasoning text (no details, no thinking blocks): its model wants it back (map-reasoning.ts).
  const plain = plainReasoningMetadata(model);
  if (plain && !Array.isArray(message.reasoning_details) && !Array.isArray(message.thinking_blocks)) {
    for (const part of parts) if (part.type === 'reasoning' && !part.signature && !part.providerMetadata) part.providerMetadata = plain;
  }
  const content = message.content;
  if (typeof content === 'string' && content !== '') parts.push({ type: 'text', text: content });
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
      if (part.type === 'refusal' && typeof part.refusal === 'string') parts.push({ type: 'refusal', refusal: part.refusal });
    }
  }
  const refusal = readString(message, 'refusal');
  if (refusal) parts.push({ type: 'refusal', refusal });
  parts.push(...madeImages(message.images));
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      const args = call.function.arguments;
      parts.push({
        type: 'tool_call',
        id: readString(call, 'id') ?? '',
        name: readString(call.function, 'name') ?? '',
        arguments: typeof args === 'string' ? args : stringifyToolInput(args),
      });
    }
  }
  return parts;
}

/**
 * Images the model made, as OpenRouter (and LiteLLM, Vercel's gateway) answer an image model:
 * `message.images[]` / `delta.images[]`, each `{type: 'image_url', image_url: {url}}`.
 */
export function madeImages(images: unknown): ImagePart[] {
  if (!Array.isArray(images)) return [];
  const out: ImagePart[] = [];
  for (const image of images) {
    const url = isRecord(image) && isRecord(image.image_url) ? readString(image.image_url, 'url') : undefined;
    if (!url) continue;
    const part: ImagePart = { type: 'image', source: urlToMediaSource(url) };
    // The gateway's carried signature (chatImage): the image's provider metadata, back on its part.
    const signature = readString(image as Record<string, unknown>, 'signature');
    const metadata = signature === undefined ? undefined : readCarried(signature)?.metadata;
    if (metadata) part.providerMetadata = metadata;
    out.push(part);
  }
  return out;
}
