import type { MockReply } from './chat-reply.ts';

type Json = Record<string, unknown>;

/** The usage of `n` choices of the reply: the prompt is read once, each choice is written. */
function usageOf(reply: MockReply, n: number): Json {
  return {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens * n,
    total_tokens: reply.promptTokens + reply.completionTokens * n,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reply.reasoningTokens * n },
  };
}

/** A Chat Completions response body for the reply, as `n` choices (the mock is deterministic: all alike). */
export function toChatCompletion(reply: MockReply, id: string, model: string, created: number, n = 1): Json {
  const message: Json = { role: 'assistant', content: reply.text ?? null, refusal: null };
  if (reply.reasoning) {
    message.reasoning_content = reply.reasoning.text;
    message.reasoning_details = [
      { type: 'reasoning.text', text: reply.reasoning.text, signature: reply.reasoning.signature, format: 'anthropic-claude-v1', index: 0 },
    ];
  }
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: Array.from({ length: n }, (_, index) => ({ index, message, logprobs: null, finish_reason: reply.finishReason })),
    usage: usageOf(reply, n),
  };
}

/** Splits text into word-sized pieces, keeping spaces, so streams have several deltas. */
export function pieces(text: string, size = 3): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(''));
  return out;
}

/** The Chat Completions SSE chunks (JSON payloads, without framing) for the reply: `n` choices, one after another. */
export function toChatChunks(reply: MockReply, id: string, model: string, created: number, includeUsage: boolean, n = 1): Json[] {
  const chunks = Array.from({ length: n }, (_, index) => choiceChunks(reply, id, model, created, includeUsage, index)).flat();
  if (includeUsage) chunks.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(reply, n) });
  return chunks;
}

function choiceChunks(reply: MockReply, id: string, model: string, created: number, includeUsage: boolean, index: number): Json[] {
  const chunk = (delta: Json, finish: string | null = null): Json => {
    const c: Json = { id, object: 'chat.completion.chunk', created, model, choices: [{ index, delta, logprobs: null, finish_reason: finish }] };
    if (includeUsage) c.usage = null;
    return c;
  };
  const chunks: Json[] = [chunk({ role: 'assistant', content: reply.toolCalls.length > 0 && !reply.text ? null : '', refusal: null })];
  if (reply.reasoning) {
    for (const piece of pieces(reply.reasoning.text)) chunks.push(chunk({ reasoning_content: piece }));
    chunks.push(
      chunk({
        reasoning_details: [{ type: 'reasoning.text', text: '', signature: reply.reasoning.signature, format: 'anthropic-claude-v1', index: 0 }],
      }),
    );
  }
  for (const piece of pieces(reply.text ?? '')) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, at) => {
    chunks.push(chunk({ tool_calls: [{ index: at, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const args = call.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) {
      if (part) chunks.push(chunk({ tool_calls: [{ index: at, function: { arguments: part } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  return chunks;
}
