import type { ContentPart, FilePart, ImagePart, MediaSource, ToolResultPart } from '../../ir/index.ts';
import { validationError } from '../../errors/index.ts';
import { decodeBase64, parseToolArguments, sanitizeToolId, splitDataUrl } from '../shared/index.ts';
import type { MessagesBlock, MessagesSource } from './types.ts';
import { encodeCitedText } from './map-web-search.ts';

/** The only image types Anthropic accepts (wire-formats §2.3, pitfall 12). */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * One IR part → Anthropic blocks for an upstream request. Tool ids are sanitised to
 * `^[a-zA-Z0-9_-]+$` (same function on tool_use and tool_result, so pairs still match).
 * Reasoning without a signature is dropped: Anthropic rejects unsigned thinking, and other
 * providers' reasoning cannot be verified anyway.
 */
export function encodeBlock(part: ContentPart, at: string): MessagesBlock | undefined {
  switch (part.type) {
    case 'text':
      return withCache(part.citations ? encodeCitedText(part, 'upstream')[0]! : { type: 'text', text: part.text }, part.cacheControl);
    case 'web_search':
      return undefined; // two blocks: encodeMessagesConversation writes them (encodeWebSearchBlocks)
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'image':
      return encodeImage(part, at);
    case 'file':
      return encodeDocument(part);
    case 'audio':
      throw validationError({ [at]: 'audio input is not supported by the upstream (Anthropic Messages)' });
    case 'tool_call':
      return withCache({ type: 'tool_use', id: sanitizeToolId(part.id), name: part.name, input: parseToolArguments(part.arguments) }, part.cacheControl);
    case 'tool_result':
      return encodeToolResult(part, at);
    case 'reasoning':
      if (part.redacted) return { type: 'redacted_thinking', data: part.data ?? '' };
      return part.signature ? { type: 'thinking', thinking: part.text, signature: part.signature } : undefined;
  }
}

function encodeImage(part: ImagePart, at: string): MessagesBlock {
  const source = encodeSource(part.source);
  if (source.type === 'base64' && !IMAGE_TYPES.has(source.media_type)) {
    throw validationError({ [at]: `image type ${source.media_type} is not supported (use jpeg, png, gif or webp)` });
  }
  return withCache({ type: 'image', source }, part.cacheControl);
}

function encodeDocument(part: FilePart): MessagesBlock {
  let source = encodeSource(part.source);
  // Anthropic takes base64 for PDFs only; inline text files go as a text source.
  if (source.type === 'base64' && source.media_type.startsWith('text/')) {
    source = { type: 'text', media_type: 'text/plain', data: decodeBase64(source.data) };
  }
  const block: MessagesBlock = { type: 'document', source };
  const title = part.title ?? part.filename;
  if (title) block.title = title;
  if (part.context) block.context = part.context;
  return withCache(block, part.cacheControl);
}

function encodeSource(source: MediaSource): MessagesSource {
  switch (source.kind) {
    case 'base64':
      return { type: 'base64', media_type: source.mediaType, data: source.data };
    case 'text':
      return { type: 'text', media_type: 'text/plain', data: source.data };
    case 'file_id':
      return { type: 'file', file_id: source.fileId };
    case 'url': {
      const split = splitDataUrl(source.url);
      return split ? { type: 'base64', media_type: split.mediaType, data: split.data } : { type: 'url', url: source.url };
    }
  }
}

function encodeToolResult(part: ToolResultPart, at: string): MessagesBlock {
  const block: MessagesBlock = { type: 'tool_result', tool_use_id: sanitizeToolId(part.toolCallId) };
  if (typeof part.content === 'string') {
    if (part.content !== '') block.content = part.content;
  } else {
    const content = part.content.flatMap((inner, k) => {
      if (inner.type === 'text' && inner.text.trim() === '') return [];
      const encoded = encodeBlock(inner, `${at}.content[${k}]`);
      return encoded ? [encoded] : [];
    });
    if (content.length > 0) block.content = content;
  }
  if (part.isError) block.is_error = true;
  return withCache(block, part.cacheControl);
}

function withCache(block: MessagesBlock, cacheControl: Record<string, unknown> | undefined): MessagesBlock {
  if (cacheControl) block.cache_control = cacheControl;
  return block;
}
