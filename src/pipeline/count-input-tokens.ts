import type { Tiktoken } from 'js-tiktoken/lite';
import type { ChatRequest, ContentPart, ToolDefinition } from '../ir/index.ts';
import { countOnWorker } from './token-worker.ts';

/**
 * A local input-token count of a request, for `count_tokens` / `input_tokens` when the serving
 * upstream has no counter of its own. js-tiktoken's o200k_base (GPT-4o/GPT-5's encoding; a
 * maintained pure-JS port of OpenAI's tiktoken: no native build, Node 20–24) — exact for those
 * models, an estimate within a few percent for others (Claude's tokenizer is not published).
 * Never a fake zero: Claude Code compacts its context from this number.
 */
let encoder: Promise<Tiktoken> | undefined;

/** This thread's encoder, only for a worker that cannot count: building it holds the event loop for seconds. */
function loadEncoder(): Promise<Tiktoken> {
  encoder ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]).then(([lite, ranks]) => new lite.Tiktoken(ranks.default));
  return encoder;
}

/** Per-message framing (role, separators), as OpenAI's own counting recipe adds it. */
const PER_MESSAGE = 3;
/** The assistant reply's priming tokens. */
const REPLY_PRIMING = 3;
/** An image of unknown size: Anthropic's ~1.15 megapixel cap / 750 px per token (its own formula). */
const IMAGE_TOKENS = 1_600;

/**
 * Counts the text the request sends as input: system, messages, tool definitions. Every count
 * is encoded on a worker thread (token-worker.ts): building js-tiktoken's encoder is one
 * synchronous task of 1–6 s on a busy 2-core machine, and encoding takes ~1 ms per 1,000
 * characters of prose (a coding agent's 400k-character context: 75–500 ms), each of which
 * would hold every other request and stream of the gateway. The round trip adds ~0.07 ms of CPU
 * to a short count (0.095 against 0.023 ms measured), which is why there is no inline path.
 */
export async function countInputTokens(request: ChatRequest): Promise<number> {
  const texts: string[] = [];
  const count = (text: string): number => {
    if (text !== '') texts.push(text);
    return 0;
  };
  let total = REPLY_PRIMING;
  for (const part of request.system) total += count(part.text);
  if (request.system.length > 0) total += PER_MESSAGE;
  for (const message of request.messages) {
    total += PER_MESSAGE;
    for (const part of message.content) total += countPart(part, count);
  }
  for (const tool of request.tools ?? []) total += count(toolText(tool)) + PER_MESSAGE;
  // A worker that cannot count (it failed to start or died) leaves the count to this thread: a number, never none.
  return total + (await countOnWorker(texts).catch(async () => encodeHere(await loadEncoder(), texts)));
}

function encodeHere(tiktoken: Tiktoken, texts: readonly string[]): number {
  let tokens = 0;
  for (const text of texts) tokens += tiktoken.encode(text).length;
  return tokens;
}

function countPart(part: ContentPart, count: (text: string) => number): number {
  switch (part.type) {
    case 'text':
      return count(part.text);
    case 'reasoning':
      return count(part.text);
    case 'refusal':
      return count(part.refusal);
    case 'web_search':
      return count(part.query ?? '') + (part.sources ?? []).reduce((sum, source) => sum + count(`${source.url} ${source.title ?? ''}`), 0);
    case 'tool_call':
      return count(part.name) + count(part.arguments);
    case 'tool_result':
      return typeof part.content === 'string' ? count(part.content) : part.content.reduce((sum, inner) => sum + countPart(inner, count), 0);
    case 'image':
      return IMAGE_TOKENS;
    case 'file':
      // A text document counts as its text; a binary one (PDF) by its decoded size, ~4 bytes a token.
      return part.source.kind === 'text' ? count(part.source.data) : part.source.kind === 'base64' ? Math.ceil((part.source.data.length * 3) / 4 / 4) : IMAGE_TOKENS;
    case 'audio':
      return Math.ceil((part.data.length * 3) / 4 / 4);
  }
}

function toolText(tool: ToolDefinition): string {
  return JSON.stringify({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? {} });
}
