import type { ProviderMetadata, ReasoningPart } from '../../ir/index.ts';
import { carryOpaque, hasMetadata, isRecord, opaqueOfReasoning, readCarried, readString, restoreReasoning } from '../shared/index.ts';
import { ANTHROPIC_REASONING_FORMAT, GOOGLE_REASONING_FORMAT, OPENAI_REASONING_FORMAT, UNKNOWN_REASONING_FORMAT, type ChatReasoningDetail } from './types.ts';

/**
 * Reasoning on an assistant message (request or response) → IR parts. Precedence:
 * OpenRouter `reasoning_details` (carries signatures) > LiteLLM `thinking_blocks` >
 * plain `reasoning_content` / `reasoning` text.
 */
export function decodeChatReasoning(message: Record<string, unknown>): ReasoningPart[] {
  if (Array.isArray(message.reasoning_details) && message.reasoning_details.length > 0) {
    return decodeReasoningDetails(message.reasoning_details);
  }
  if (Array.isArray(message.thinking_blocks) && message.thinking_blocks.length > 0) {
    return decodeThinkingBlocks(message.thinking_blocks);
  }
  const text = readString(message, 'reasoning_content') ?? readString(message, 'reasoning');
  return text ? [{ type: 'reasoning', text }] : [];
}

/**
 * Reasoning a Chat upstream answered as plain `reasoning_content` (DeepSeek, Kimi, vLLM): marked with
 * the model that wrote it, so it goes back to that model as `reasoning_content`. DeepSeek's thinking
 * mode refuses a tool loop whose assistant turns lack it ("Missing `reasoning_content` field in the
 * assistant message"); OpenAI's Chat API takes no reasoning input, so it goes to no other model.
 */
export const CHAT_REASONING = 'chat';

/** The provider metadata of plain reasoning `model` wrote (undefined without a model). */
export function plainReasoningMetadata(model: string): ProviderMetadata | undefined {
  return model === '' ? undefined : { [CHAT_REASONING]: { model } };
}

/** Whether a reasoning part is `model`'s own plain reasoning (see CHAT_REASONING). */
export function isPlainReasoningOf(part: ReasoningPart, model: string): boolean {
  return part.providerMetadata?.[CHAT_REASONING]?.model === model && part.signature === undefined && part.encrypted === undefined && !part.redacted;
}

/** OpenRouter `reasoning_details` → IR parts, in order. Unknown detail types are skipped. */
export function decodeReasoningDetails(details: unknown[]): ReasoningPart[] {
  const parts: ReasoningPart[] = [];
  for (const detail of details) {
    if (!isRecord(detail)) continue;
    const id = readString(detail, 'id');
    if (detail.type === 'reasoning.text') {
      const part: ReasoningPart = { type: 'reasoning', text: readString(detail, 'text') ?? '' };
      const signature = readString(detail, 'signature');
      const carried = signature ? readCarried(signature) : undefined;
      if (carried) restoreReasoning(part, carried);
      else if (signature) part.signature = signature;
      if (id) part.itemId = id;
      const format = readString(detail, 'format');
      if (format === GOOGLE_REASONING_FORMAT) part.origin = 'google';
      else if (format === ANTHROPIC_REASONING_FORMAT && !part.signature) part.origin = 'anthropic';
      parts.push(part);
    } else if (detail.type === 'reasoning.summary') {
      const part: ReasoningPart = { type: 'reasoning', text: readString(detail, 'summary') ?? '' };
      if (id) part.itemId = id;
      parts.push(part);
    } else if (detail.type === 'reasoning.encrypted') {
      const data = readString(detail, 'data') ?? '';
      if (readString(detail, 'format')?.startsWith('openai')) {
        const last = parts.at(-1);
        // A Responses reasoning item arrives as summary + encrypted with the same id: one IR part.
        if (last && !last.encrypted && !last.redacted && last.itemId !== undefined && last.itemId === id) last.encrypted = data;
        else parts.push({ type: 'reasoning', text: '', encrypted: data, ...(id ? { itemId: id } : {}) });
      } else {
        parts.push({ type: 'reasoning', text: '', redacted: true, data });
      }
    }
  }
  return parts;
}

function decodeThinkingBlocks(blocks: unknown[]): ReasoningPart[] {
  const parts: ReasoningPart[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === 'thinking') {
      const part: ReasoningPart = { type: 'reasoning', text: readString(block, 'thinking') ?? '' };
      const signature = readString(block, 'signature');
      if (signature) part.signature = signature;
      parts.push(part);
    } else if (block.type === 'redacted_thinking') {
      parts.push({ type: 'reasoning', text: '', redacted: true, data: readString(block, 'data') ?? '' });
    }
  }
  return parts;
}

/** The readable reasoning text of some parts (`reasoning_content`); undefined when there is none. */
export function reasoningText(parts: ReasoningPart[]): string | undefined {
  const text = parts
    .filter((part) => !part.redacted)
    .map((part) => part.text)
    .join('');
  return text === '' ? undefined : text;
}

/** IR parts → OpenRouter `reasoning_details`, indexed from `startIndex`. */
export function encodeReasoningDetails(parts: ReasoningPart[], startIndex = 0): ChatReasoningDetail[] {
  const out: ChatReasoningDetail[] = [];
  let index = startIndex;
  for (const part of parts) {
    const id = part.itemId ? { id: part.itemId } : {};
    if (part.redacted) {
      out.push({ type: 'reasoning.encrypted', data: part.data ?? '', format: ANTHROPIC_REASONING_FORMAT, index: index++ });
    } else if (part.encrypted !== undefined) {
      if (part.text) out.push({ type: 'reasoning.summary', summary: part.text, format: OPENAI_REASONING_FORMAT, index: index++, ...id });
      out.push({ type: 'reasoning.encrypted', data: part.encrypted, format: OPENAI_REASONING_FORMAT, index: index++, ...id });
    } else {
      const carried = hasMetadata(part.providerMetadata) ? carryOpaque(opaqueOfReasoning(part)) : part.signature;
      const signature = carried ? { signature: carried } : {};
      out.push({ type: 'reasoning.text', text: part.text, ...signature, format: reasoningFormat(part), index: index++, ...id });
    }
  }
  return out;
}

/**
 * The `format` naming where reasoning came from, as OpenRouter labels it: Responses parts (with an
 * `rs_` item id) are OpenAI's, Gemini's thoughts (signed or marked by its decoder) Google's,
 * Anthropic's thinking (a signature, redacted, or marked by the Messages decoder or a client's
 * own `anthropic-claude-v1` detail) Anthropic's; anything else (DeepSeek's, vLLM's plain
 * `reasoning_content`, a client's `unknown` detail) is `unknown`, not someone else's.
 */
export function reasoningFormat(part: Pick<ReasoningPart, 'itemId' | 'origin' | 'providerMetadata' | 'signature' | 'redacted'>): string {
  if (part.itemId) return OPENAI_REASONING_FORMAT;
  if (part.origin === 'google' || part.providerMetadata?.google !== undefined) return GOOGLE_REASONING_FORMAT;
  if (part.origin === 'anthropic' || part.signature !== undefined || part.redacted === true) return ANTHROPIC_REASONING_FORMAT;
  return UNKNOWN_REASONING_FORMAT;
}
