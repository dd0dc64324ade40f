import type { ChatRequest, ContentPart, MediaSource } from '../ir/index.ts';

/**
 * An upper bound of the input tokens any upstream can bill for a request, for the credit hold
 * (docs/billing.md, "The hold rule"). Text is counted in UTF-8 bytes: every tokenizer the
 * providers use is a byte-level BPE (tiktoken's o200k/cl100k, Anthropic's, Gemini's
 * SentencePiece with byte fallback), whose every token covers at least one byte, so a text of
 * n bytes is never more than n tokens — whatever model serves it, fallbacks included. A real
 * tokenizer would be exact for one family only and may count less than another family bills.
 */
export function boundInputTokens(request: ChatRequest): number {
  let tokens = PER_REQUEST;
  for (const part of request.system) tokens += PER_MESSAGE + bytes(part.text);
  for (const message of request.messages) {
    tokens += PER_MESSAGE + (message.name ? bytes(message.name) : 0);
    for (const part of message.content) tokens += partBound(part);
  }
  for (const tool of request.tools ?? []) tokens += PER_TOOL + bytes(tool.name) + (tool.description ? bytes(tool.description) : 0) + (tool.parameters ? bytes(JSON.stringify(tool.parameters)) : 0);
  const format = request.responseFormat;
  if (format?.type === 'json_schema' && format.schema) tokens += PER_TOOL + bytes(JSON.stringify(format.schema));
  return tokens;
}

/**
 * Per-message framing the providers add around each message (role markers, separators):
 * OpenAI documents 3 tokens a message (4 with a name) and 3 to prime the reply; 8 and 16
 * leave room for formats that frame more.
 */
const PER_MESSAGE = 8;
const PER_REQUEST = 16;
/** Framing of one tool definition (or a response schema) beyond its JSON. */
const PER_TOOL = 16;
/**
 * An image at most, as the providers document it: Anthropic about 1,600 tokens (1.15
 * megapixels), OpenAI GPT-4o/4.1 high detail 1,445–2,489, Gemini 258 a tile. Not a proof:
 * a provider that counts more (GPT-4o mini bills an image as ~33 times its tiles) is charged
 * the difference after the answer (logged), and the account is refused once at zero.
 */
export const IMAGE_TOKENS = 2_500;

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A document or audio clip: its decoded bytes bound its text; an image allowance covers a page rendered as an image. */
function mediaBound(source: MediaSource | { data: string }): number {
  const data = 'data' in source ? source.data : '';
  return IMAGE_TOKENS + Math.ceil((data.length * 3) / 4);
}

function partBound(part: ContentPart): number {
  switch (part.type) {
    case 'text':
      return bytes(part.text);
    case 'image':
      return IMAGE_TOKENS;
    case 'file':
      return mediaBound(part.source);
    case 'audio':
      return mediaBound(part);
    case 'tool_call':
      return PER_MESSAGE + bytes(part.name) + bytes(part.arguments) + bytes(part.id);
    case 'tool_result':
      if (typeof part.content === 'string') return PER_MESSAGE + bytes(part.content);
      return part.content.reduce((n, p) => n + partBound(p), PER_MESSAGE);
    case 'reasoning':
      return bytes(part.text) + (part.data ? bytes(part.data) : 0);
    case 'refusal':
      return bytes(part.refusal);
    case 'web_search':
      // A replayed search's results (their opaque content included) are input the upstream reads.
      return PER_MESSAGE + bytes(JSON.stringify(part));
  }
}
