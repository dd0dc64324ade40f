import type { ContentPart, FilePart, ImagePart, MediaSource, Message, TextPart, ToolCallPart, ToolDefinition, ToolResultPart, Unconvertible } from '../../ir/index.ts';
import { FieldChecker, isRecord, readCarried, readToolId, restoreReasoning, stringifyToolInput } from '../shared/index.ts';
import { decodeCitations, decodeServerToolUse, decodeWebSearchResult, joinWebSearchParts } from './map-web-search.ts';

/**
 * One Anthropic message → IR messages. A user turn's tool_result blocks become IR `tool`
 * messages (one result each, like Chat), the other blocks user messages, in their order.
 * The web-search server tool's blocks become one search part; other server tools and unknown
 * block types are skipped, unless that leaves the turn with nothing: then the first skipped block
 * goes to `unconvertible` (docs/api-decisions.md, a 400 on conversion; a passthrough forwards it
 * for the upstream to judge). A `system` turn keeps its place: each target format says where it
 * goes (its encoder). `tools` are the request's, for the definitions a tool_reference names.
 */
export function decodeMessagesTurn(role: 'user' | 'assistant' | 'system', content: unknown, at: string, check: FieldChecker, unconvertible: Unconvertible[] = [], tools: readonly ToolDefinition[] = []): Message[] {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  if (!Array.isArray(blocks)) {
    check.fail(`${at}.content`, blocks === undefined || blocks === null ? 'is required' : 'must be a string or an array of content blocks');
    return [];
  }
  const out: Message[] = [];
  let run: ContentPart[] = [];
  const flush = (): void => {
    if (run.length > 0) out.push({ role, content: run });
    run = [];
  };
  let skipped: { path: string; type: unknown } | undefined;
  blocks.forEach((block, j) => {
    const path = `${at}.content[${j}]`;
    if (!isRecord(block)) return check.fail(path, 'must be an object');
    const part = block.type === 'tool_result' ? decodeToolResult(block, path, check, tools) : decodeBlock(block, path, check);
    if (!part) return void (skipped ??= { path, type: block.type });
    if (part.type === 'tool_result' && role === 'user') {
      flush();
      out.push({ role: 'tool', content: [part] });
    } else {
      run.push(part);
    }
  });
  flush();
  if (out.length === 0 && skipped) {
    unconvertible.push({ field: `${skipped.path}.type`, message: `type '${String(skipped.type)}' is not a content block the gateway can convert, and without it the message has no content`, missing: true });
  }
  for (const message of out) message.content = joinWebSearchParts(message.content);
  return out;
}

/** One Anthropic content block → IR part (undefined for unknown types or invalid blocks). */
export function decodeBlock(block: Record<string, unknown>, at: string, check: FieldChecker): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return decodeTextBlock(block, at, check);
    case 'image':
      return decodeImageBlock(block, at, check);
    case 'document':
      return decodeDocumentBlock(block, at, check);
    case 'tool_use': {
      const { id, providerMetadata, itemId } = readToolId(check.requiredString(block.id, `${at}.id`));
      const part: ToolCallPart = { type: 'tool_call', id, name: check.requiredString(block.name, `${at}.name`), arguments: stringifyToolInput(block.input ?? {}) };
      if (providerMetadata) part.providerMetadata = providerMetadata;
      if (itemId !== undefined) part.itemId = itemId;
      const cache = check.record(block.cache_control, `${at}.cache_control`);
      if (cache) part.cacheControl = cache;
      return part;
    }
    case 'tool_result':
      return decodeToolResult(block, at, check);
    case 'thinking': {
      const text = check.requiredString(block.thinking, `${at}.thinking`);
      const signature = check.string(block.signature, `${at}.signature`);
      if (!signature) return { type: 'reasoning', text };
      // A signature the gateway wrote for data Messages has no field for (shared/carry-opaque.ts).
      const carried = readCarried(signature);
      return carried ? restoreReasoning({ type: 'reasoning', text }, carried) : { type: 'reasoning', text, signature };
    }
    case 'server_tool_use':
      return decodeServerToolUse(block);
    case 'web_search_tool_result':
      return decodeWebSearchResult(block);
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: true, data: check.requiredString(block.data, `${at}.data`) };
    default:
      return undefined;
  }
}

export function decodeTextBlock(block: Record<string, unknown>, at: string, check: FieldChecker): TextPart {
  const part: TextPart = { type: 'text', text: check.requiredString(block.text, `${at}.text`) };
  const cache = check.record(block.cache_control, `${at}.cache_control`);
  if (cache) part.cacheControl = cache;
  const citations = decodeCitations(block.citations);
  if (citations) part.citations = citations;
  return part;
}

function decodeImageBlock(block: Record<string, unknown>, at: string, check: FieldChecker): ImagePart | undefined {
  const source = decodeSource(block.source, `${at}.source`, check);
  if (!source) return undefined;
  const part: ImagePart = { type: 'image', source };
  const cache = check.record(block.cache_control, `${at}.cache_control`);
  if (cache) part.cacheControl = cache;
  return part;
}

function decodeDocumentBlock(block: Record<string, unknown>, at: string, check: FieldChecker): FilePart | undefined {
  const source = decodeSource(block.source, `${at}.source`, check);
  if (!source) return undefined;
  const part: FilePart = { type: 'file', source };
  const title = check.string(block.title, `${at}.title`);
  const context = check.string(block.context, `${at}.context`);
  const cache = check.record(block.cache_control, `${at}.cache_control`);
  if (title !== undefined) part.title = title;
  if (context !== undefined) part.context = context;
  if (cache) part.cacheControl = cache;
  return part;
}

function decodeSource(value: unknown, at: string, check: FieldChecker): MediaSource | undefined {
  const source = check.requiredRecord(value, at);
  if (!source) return undefined;
  switch (source.type) {
    case 'base64':
      return { kind: 'base64', mediaType: check.requiredString(source.media_type, `${at}.media_type`), data: check.requiredString(source.data, `${at}.data`) };
    case 'url':
      return { kind: 'url', url: check.requiredString(source.url, `${at}.url`) };
    case 'text':
      return { kind: 'text', mediaType: check.string(source.media_type, `${at}.media_type`) ?? 'text/plain', data: check.requiredString(source.data, `${at}.data`) };
    case 'file':
      return { kind: 'file_id', fileId: check.requiredString(source.file_id, `${at}.file_id`) };
    case 'content': {
      // A custom-content document: its text blocks read as one plain-text document.
      const blocks = Array.isArray(source.content) ? source.content : [{ type: 'text', text: source.content }];
      const text = blocks.flatMap((b) => (isRecord(b) && typeof b.text === 'string' ? [b.text] : [])).join('\n');
      return { kind: 'text', mediaType: 'text/plain', data: text };
    }
    default:
      check.fail(`${at}.type`, 'must be one of base64, url, text, file, content');
      return undefined;
  }
}

function decodeToolResult(block: Record<string, unknown>, at: string, check: FieldChecker, tools: readonly ToolDefinition[] = []): ToolResultPart {
  const part: ToolResultPart = { type: 'tool_result', toolCallId: readToolId(check.requiredString(block.tool_use_id, `${at}.tool_use_id`)).id, content: '' };
  const content = block.content;
  if (typeof content === 'string') part.content = content;
  else if (Array.isArray(content)) {
    const parts: Array<TextPart | ImagePart | FilePart> = [];
    const referenced: string[] = [];
    content.forEach((item, k) => {
      if (!isRecord(item)) return;
      if (item.type === 'tool_reference') return void referenced.push(check.requiredString(item.tool_name, `${at}.content[${k}].tool_name`));
      const decoded = decodeBlock(item, `${at}.content[${k}]`, check);
      if (decoded?.type === 'text' || decoded?.type === 'image' || decoded?.type === 'file') parts.push(decoded);
    });
    if (referenced.length > 0) parts.push({ type: 'text', text: referencedTools(referenced, tools) });
    part.content = parts;
  } else if (content !== undefined && content !== null) {
    check.fail(`${at}.content`, 'must be a string or an array of content blocks');
  }
  const isError = check.boolean(block.is_error, `${at}.is_error`);
  const cache = check.record(block.cache_control, `${at}.cache_control`);
  if (isError !== undefined) part.isError = isError;
  if (cache) part.cacheControl = cache;
  return part;
}

/**
 * Tool search's `tool_reference` blocks (Claude Code's ToolSearch) stand, on Anthropic's side, for
 * the named tools' full definitions. Another format has no such block: the definitions go as text,
 * a `<functions>` block with one `<function>{description, name, parameters}</function>` line each
 * (what ToolSearch tells the model its result holds); a name the request's tools lack, by name only.
 */
function referencedTools(names: string[], tools: readonly ToolDefinition[]): string {
  const lines = names.map((name) => {
    const tool = tools.find((candidate) => candidate.name === name);
    const definition = tool ? { description: tool.description, name, parameters: tool.parameters } : { name };
    return `<function>${JSON.stringify(definition)}</function>`;
  });
  return ['<functions>', ...lines, '</functions>'].join('\n');
}
