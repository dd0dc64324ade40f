import type { ChatRequest, ChatResponse, ContentPart } from '../../ir/types.ts';
import { parseToolArguments, prefixedId } from '../shared/index.ts';
import { encodeMessagesStopReason } from './map-finish-reason.ts';
import { encodeMessagesUsage } from './map-usage.ts';
import { clientSignature } from './stash-reasoning.ts';
import type { MessagesBlock } from './types.ts';

/**
 * IR → an Anthropic Messages response for a client. Tool ids are kept as the upstream gave
 * them (the client sends them back; the request encoder sanitises them if needed). Reasoning
 * without a signature (from other providers) is still shown, with an empty signature; OpenAI
 * encrypted reasoning rides in the signature (see stash-reasoning.ts).
 */
export function encodeMessagesResponse(response: ChatResponse, _request: ChatRequest): Record<string, unknown> {
  return {
    id: prefixedId('msg_', response.id),
    type: 'message',
    role: 'assistant',
    model: response.model,
    content: response.content.flatMap(encodeOutputBlock),
    stop_reason: encodeMessagesStopReason(response.finishReason, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    usage: encodeMessagesUsage(response.usage),
  };
}

function encodeOutputBlock(part: ContentPart): MessagesBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'refusal':
      return [{ type: 'text', text: part.refusal }];
    case 'reasoning':
      if (part.redacted) return [{ type: 'redacted_thinking', data: part.data ?? '' }];
      if (!part.text && !part.signature && part.encrypted === undefined) return [];
      return [{ type: 'thinking', thinking: part.text, signature: clientSignature(part) }];
    case 'tool_call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolArguments(part.arguments) }];
    default:
      return [];
  }
}
