import type { ChatRequest } from '../../ir/index.ts';
import { encodeBlock } from './encode-content.ts';
import type { MessagesBlock, MessagesMessage } from './types.ts';
import { encodeWebSearchBlocks } from './map-web-search.ts';

/**
 * IR conversation → Anthropic `system` + `messages` (wire-formats §4.2, §4.4, pitfalls 2–3):
 * system/developer text is hoisted into `system` in order; tool results ride in user turns;
 * empty text blocks and images in assistant turns are dropped; consecutive same-role turns are merged; in a user turn the
 * tool_result blocks come first; a final assistant prefill loses its trailing whitespace.
 */
export function encodeMessagesConversation(request: ChatRequest): { system: MessagesBlock[]; messages: MessagesMessage[] } {
  const system: MessagesBlock[] = [];
  for (const part of request.system) pushText(system, part.text, part.cacheControl);
  const turns: MessagesMessage[] = [];
  request.messages.forEach((message, i) => {
    if (message.role === 'system' || message.role === 'developer') {
      for (const part of message.content) if (part.type === 'text') pushText(system, part.text, part.cacheControl);
      return;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content: MessagesBlock[] = [];
    message.content.forEach((part, j) => {
      if (part.type === 'text' && part.text.trim() === '') return;
      // Anthropic refuses image blocks in assistant turns: an image a model made (sent back for an edit) stays out.
      if (role === 'assistant' && (part.type === 'image' || part.type === 'file')) return;
      if (part.type === 'web_search') return void content.push(...encodeWebSearchBlocks(part, 'upstream'));
      const block = encodeBlock(part, `messages[${i}].content[${j}]`);
      if (block) content.push(block);
    });
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  });
  for (const turn of turns) if (turn.role === 'user') toolResultsFirst(turn);
  trimFinalPrefill(turns);
  return { system, messages: turns };
}

function pushText(system: MessagesBlock[], text: string, cacheControl: Record<string, unknown> | undefined): void {
  if (text.trim() === '') return;
  system.push(cacheControl ? { type: 'text', text, cache_control: cacheControl } : { type: 'text', text });
}

/** Stable partition: Anthropic wants a user turn's tool_result blocks before anything else. */
function toolResultsFirst(turn: MessagesMessage): void {
  const results = turn.content.filter((block) => block.type === 'tool_result');
  if (results.length === 0 || results.length === turn.content.length) return;
  turn.content = [...results, ...turn.content.filter((block) => block.type !== 'tool_result')];
}

/** A final assistant turn (prefill) must not end in whitespace. */
function trimFinalPrefill(turns: MessagesMessage[]): void {
  const last = turns.at(-1);
  if (last?.role !== 'assistant') return;
  const block = last.content.at(-1);
  if (block?.type !== 'text' || typeof block.text !== 'string') return;
  const trimmed = block.text.trimEnd();
  if (trimmed !== '') block.text = trimmed;
  else {
    last.content.pop();
    if (last.content.length === 0) turns.pop();
  }
}
