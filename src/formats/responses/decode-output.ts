import type { ContentPart, ImagePart, MediaSource, TextPart, ToolCallPart } from '../../ir/index.ts';
import { decodeLogprobs, readToolId } from '../shared/index.ts';
import { reasoningPartFromItem, type ReasoningItemFields } from './decode-reasoning.ts';
import { decodeAnnotations, decodeWebSearchCall } from './map-web-search.ts';

type Item = Record<string, unknown>;

function asItem(value: unknown): Item | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Item) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function messageParts(item: Item): ContentPart[] {
  const content = Array.isArray(item.content) ? item.content : [];
  const itemId = str(item.id);
  return content.flatMap((raw): ContentPart[] => {
    const part = asItem(raw);
    if (part?.type === 'output_text' && typeof part.text === 'string') {
      const text: TextPart = { type: 'text', text: part.text };
      const citations = decodeAnnotations(part.annotations);
      if (citations) text.citations = citations;
      if (itemId) text.itemId = itemId;
      const logprobs = decodeLogprobs(part.logprobs);
      if (logprobs) text.logprobs = logprobs;
      return [text];
    }
    if (part?.type === 'refusal' && typeof part.refusal === 'string') return [{ type: 'refusal', refusal: part.refusal }];
    return [];
  });
}

/** An `image_generation_call`'s base64 `result` as a media source (`output_format` names its type; OpenAI's default is png). */
export function generatedImageSource(data: string, format: unknown): MediaSource {
  return { kind: 'base64', mediaType: `image/${typeof format === 'string' && format !== '' ? format : 'png'}`, data };
}

/** The image an `image_generation_call` item made (OpenAI's hosted image tool); undefined while it has none. */
export function imageFromItem(item: Item): ImagePart | undefined {
  return typeof item.result === 'string' && item.result !== '' ? { type: 'image', source: generatedImageSource(item.result, item.output_format) } : undefined;
}

/** A function_call output item → IR tool call (IR id = call_id, the id results reference). */
export function toolCallFromItem(item: Item): ToolCallPart {
  const itemId = str(item.id);
  const { id, providerMetadata } = readToolId(str(item.call_id) ?? itemId ?? '');
  const part: ToolCallPart = { type: 'tool_call', id, name: str(item.name) ?? '', arguments: str(item.arguments) ?? '' };
  if (itemId) part.itemId = itemId;
  if (providerMetadata) part.providerMetadata = providerMetadata;
  return part;
}

/** Upstream `output[]` → IR content in order; hosted-tool items other than web_search_call and image_generation_call are skipped. */
export function decodeOutputItems(output: readonly unknown[]): { content: ContentPart[]; hasToolCalls: boolean } {
  const content: ContentPart[] = [];
  let hasToolCalls = false;
  for (const raw of output) {
    const item = asItem(raw);
    if (item?.type === 'message') content.push(...messageParts(item));
    else if (item?.type === 'function_call') {
      hasToolCalls = true;
      content.push(toolCallFromItem(item));
    } else if (item?.type === 'reasoning') content.push(reasoningPartFromItem(item as ReasoningItemFields));
    else if (item?.type === 'web_search_call') content.push(decodeWebSearchCall(item));
    else if (item?.type === 'image_generation_call') {
      const image = imageFromItem(item);
      if (image) content.push(image);
    }
  }
  return { content, hasToolCalls };
}
