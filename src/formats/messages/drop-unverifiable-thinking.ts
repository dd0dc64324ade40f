import type { PassthroughRequest } from '../types.ts';
import { CARRIED_PREFIXES, isRecord, readCarried } from '../shared/index.ts';

type Json = Record<string, unknown>;
type Prepared = PassthroughRequest & { adapted?: string[] };

/** What only a thinking block the gateway wrote can hold: its carried data (CARRIED_PREFIXES), or an empty signature. */
const EMPTY_SIGNATURE = /"signature"\s*:\s*""/;

/**
 * A Messages body bound for a Messages upstream (a same-format passthrough) without the thinking
 * blocks Anthropic cannot verify. Anthropic checks the signature of every thinking block it is
 * sent, in any turn, and refuses the request (`messages.N.content.M: Invalid signature in
 * thinking block`) for one it did not issue, so a client that thought on another model (its
 * reasoning reached the client as a thinking block with an empty signature, or with the
 * gateway's carried data: OpenAI's encrypted reasoning, Gemini's signatures) and switches to a
 * Claude model would be stuck. Such blocks are taken out; a carried Anthropic signature (or
 * redacted thinking) is put back as Anthropic wrote it. When the tool loop the request continues
 * is then left without signed thinking, thinking is off for this request, as on a converted route
 * (Anthropic requires the final assistant tool turn to start with one). A body without such a
 * block (every Claude-only session) is not parsed again and goes byte for byte.
 */
export function dropUnverifiableThinking(request: PassthroughRequest): Prepared | undefined {
  const { raw } = request;
  if (!CARRIED_PREFIXES.some((prefix) => raw.includes(prefix)) && !EMPTY_SIGNATURE.test(raw)) return undefined;
  const messages = request.body.messages;
  if (!Array.isArray(messages)) return undefined;
  let dropped = 0;
  let changed = false;
  const kept: unknown[] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) {
      kept.push(message);
      continue;
    }
    const content: unknown[] = [];
    let edited = false;
    for (const block of message.content) {
      const verifiable = isRecord(block) && block.type === 'thinking' ? verifiableThinking(block) : block;
      if (verifiable !== block) edited = true;
      if (verifiable === undefined) dropped += 1;
      else content.push(verifiable);
    }
    changed ||= edited;
    // An assistant turn that held only such thinking has nothing left to say.
    if (content.length > 0) kept.push(edited ? { ...message, content } : message);
  }
  if (!changed) return undefined;
  const body: Json = { ...request.body, messages: kept };
  const adapted = dropped > 0 ? [`thinking=dropped(${dropped})`] : [];
  if (thinkingOn(body.thinking) && continuesToolLoopUnsigned(kept)) {
    delete body.thinking;
    adapted.push('thinking=off');
  }
  const prepared: Prepared = { body, raw: JSON.stringify(body), stream: request.stream };
  if (adapted.length > 0) prepared.adapted = adapted;
  return prepared;
}

/** The block as Anthropic can verify it: itself, its carried Anthropic signature put back, or undefined (taken out). */
function verifiableThinking(block: Json): Json | undefined {
  const signature = block.signature;
  if (typeof signature !== 'string' || signature === '') return undefined;
  if (!CARRIED_PREFIXES.some((prefix) => signature.startsWith(prefix))) return block;
  const carried = readCarried(signature);
  if (carried?.signature !== undefined) return { ...block, signature: carried.signature };
  if (carried?.redacted !== undefined) return { type: 'redacted_thinking', data: carried.redacted };
  return undefined;
}

function thinkingOn(thinking: unknown): boolean {
  return isRecord(thinking) && (thinking.type === 'enabled' || thinking.type === 'adaptive');
}

/** The last assistant turn calls tools, its results follow, and it does not start with signed thinking. */
function continuesToolLoopUnsigned(messages: unknown[]): boolean {
  let i = messages.length - 1;
  let hasResult = false;
  for (; i >= 0 && (messages[i] as Json)?.role !== 'assistant'; i--) {
    const content = (messages[i] as Json)?.content;
    if (Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'tool_result')) hasResult = true;
  }
  if (i < 0 || !hasResult) return false;
  const content = (messages[i] as Json).content as unknown[];
  if (!content.some((block) => isRecord(block) && block.type === 'tool_use')) return false;
  const first = content[0];
  return !(isRecord(first) && (first.type === 'thinking' || first.type === 'redacted_thinking'));
}
