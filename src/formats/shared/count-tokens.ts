import type { ChatRequest, ContentPart, Message, ToolResultPart } from '../../ir/index.ts';
import { isRecord } from './json.ts';

/** A positive token count under `key` of an upstream counter's answer; undefined when it did not say. */
export function readCount(answer: unknown, key: string): number | undefined {
  const value = isRecord(answer) ? answer[key] : undefined;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** The members of an encoded request body an upstream counter takes (its count route refuses the others). */
export function pickCounted(body: Record<string, unknown>, keys: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) if (keys.has(key)) out[key] = body[key];
  return out;
}

/** A count body for an upstream counter: the upstream's model id, no stream flag. */
export function countBodyFor(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, model: upstreamModel };
  delete out.stream;
  return out;
}

/** What a tool result holds, as user content. */
function resultAsUserContent(result: ToolResultPart): ContentPart[] {
  return typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : result.content;
}

/**
 * The request for a converted count, each tool result whose call it does not hold (gemini-cli counts
 * a tool's output alone: a functionResponse and the media the tool read) turned into the user content
 * it holds: Anthropic's and OpenAI's counters refuse a result without its call (400), as their
 * inference does, and the count went local. What is counted is the result's words and media.
 */
export function loneResultsAsUserContent(request: ChatRequest): ChatRequest {
  const calls = new Set<string>();
  let messages: Message[] | undefined;
  for (let i = 0; i < request.messages.length; i += 1) {
    const message = request.messages[i];
    let kept: ContentPart[] | undefined;
    const lone: ContentPart[] = [];
    for (let j = 0; j < message.content.length; j += 1) {
      const part = message.content[j];
      if (part.type === 'tool_call') calls.add(part.id);
      if (part.type !== 'tool_result' || calls.has(part.toolCallId)) {
        kept?.push(part);
        continue;
      }
      kept ??= message.content.slice(0, j);
      for (const held of resultAsUserContent(part)) lone.push(held);
    }
    if (!kept) {
      messages?.push(message);
      continue;
    }
    messages ??= request.messages.slice(0, i);
    if (kept.length > 0) messages.push({ ...message, content: kept });
    if (lone.length > 0) messages.push({ role: 'user', content: lone });
  }
  return messages ? { ...request, messages } : request;
}
