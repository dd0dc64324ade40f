import type { ChatRequest, ChatResponse, ContentPart, ReasoningPart } from '../../ir/index.ts';
import { carryOpaque, hasMetadata, opaqueOfReasoning, pairsCalls, parseToolArguments, prefixedId, toolIdForClient } from '../shared/index.ts';
import { encodeMessagesStopDetails, encodeMessagesStopReason, refusalFinish } from './map-finish-reason.ts';
import { encodeMessagesUsage } from './map-usage.ts';
import type { MessagesBlock } from './types.ts';
import { encodeCitedText, encodeWebSearchBlocks } from './map-web-search.ts';

/**
 * IR → an Anthropic Messages response for a client. Tool ids are kept as the upstream gave
 * them (the client sends them back; the request encoder sanitises them if needed). Reasoning
 * without a signature (from other providers) is still shown, with an empty signature; OpenAI
 * encrypted reasoning and provider metadata ride in the signature, a call's metadata in its id
 * (shared/carry-opaque.ts).
 */
export function encodeMessagesResponse(response: ChatResponse, _request: ChatRequest): Record<string, unknown> {
  const finish = refusalFinish(response.finishReason, response.content.some((part) => part.type === 'refusal'));
  return {
    id: prefixedId('msg_', response.id),
    type: 'message',
    role: 'assistant',
    model: response.model,
    content: joinTexts(response.content.flatMap((part) => encodeOutputBlock(part, pairsCalls(response)))),
    stop_reason: encodeMessagesStopReason(finish, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    // Fields the API writes on every answer, null when they do not apply (the SDK's `Message` type has them
    // required): a client checking `stop_details !== null` read undefined.
    stop_details: encodeMessagesStopDetails(finish),
    container: null,
    usage: encodeMessagesUsage(response.usage),
  };
}

/**
 * Adjacent plain text blocks are one, as the stream writes them: a Gemini answer's text often
 * comes in several parts (the last one signed), and a client reading `content[0].text` (the
 * SDKs' examples) got only the first. Cited text keeps its blocks (each its citations).
 */
function joinTexts(blocks: MessagesBlock[]): MessagesBlock[] {
  const out: MessagesBlock[] = [];
  for (const block of blocks) {
    const last = out.at(-1);
    if (block.type === 'text' && last?.type === 'text' && block.citations === undefined && last.citations === undefined) out[out.length - 1] = { type: 'text', text: `${last.text as string}${block.text as string}` };
    else out.push(block);
  }
  return out;
}

function encodeOutputBlock(part: ContentPart, paired: boolean): MessagesBlock[] {
  switch (part.type) {
    case 'text':
      if (part.text === '') return [];
      return part.citations ? encodeCitedText(part, 'client') : [{ type: 'text', text: part.text }];
    case 'web_search':
      return encodeWebSearchBlocks(part, 'client');
    case 'refusal':
      return [{ type: 'text', text: part.refusal }];
    case 'reasoning':
      if (part.redacted) return [{ type: 'redacted_thinking', data: part.data ?? '' }];
      if (!part.text && !part.signature && part.encrypted === undefined && !hasMetadata(part.providerMetadata)) return [];
      return [{ type: 'thinking', thinking: part.text, signature: clientSignature(part) }];
    case 'tool_call':
      return [{ type: 'tool_use', id: toolIdForClient(part.id, part.providerMetadata, paired ? part.itemId : undefined), name: part.name, input: parseToolArguments(part.arguments) }];
    default:
      return [];
  }
}

/** The signature a Messages client sees for a reasoning part: Anthropic's own, else what it carries ('' when nothing). */
export function clientSignature(part: ReasoningPart): string {
  if (part.signature !== undefined && !hasMetadata(part.providerMetadata)) return part.signature;
  return part.encrypted !== undefined || part.signature !== undefined || hasMetadata(part.providerMetadata) ? carryOpaque(opaqueOfReasoning(part)) : '';
}
