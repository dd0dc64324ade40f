import type { ContentPart, FilePart, ImagePart, Message, ReasoningPart, TextPart, ToolResultPart, WebSearchPart } from '../../ir/index.ts';
import { hasMetadata, mediaSourceToUrl } from '../shared/index.ts';
import { encodeAnnotations, OTHER_VENDOR_SEARCH_PREFIX, webSearchCallItem } from './map-web-search.ts';
import { createReasoningItemId, functionCallItemIdFor, isGatewayReasoningId } from './create-id.ts';
import { encryptedContentFor, imageGenerationCallItem } from './encode-output.ts';

/** What to do with reasoning that carries no OpenAI state (Anthropic signatures, plain text). */
export type ForeignReasoning = 'drop' | 'stash';

type Item = Record<string, unknown>;

const EXTENSION_BY_MEDIA_TYPE: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'application/json': 'json',
};

function encodeImage(part: ImagePart): Item {
  const detail = part.detail === undefined ? {} : { detail: part.detail };
  if (part.source.kind === 'file_id') return { type: 'input_image', file_id: part.source.fileId, ...detail };
  return { type: 'input_image', image_url: mediaSourceToUrl(part.source), ...detail };
}

function encodeFile(part: FilePart): Item {
  const source = part.source;
  if (source.kind === 'url') return { type: 'input_file', file_url: source.url, ...(part.filename ? { filename: part.filename } : {}) };
  if (source.kind === 'file_id') return { type: 'input_file', file_id: source.fileId, ...(part.filename ? { filename: part.filename } : {}) };
  // OpenAI wants a filename with inline file data.
  const filename = part.filename ?? part.title ?? `document.${Object.hasOwn(EXTENSION_BY_MEDIA_TYPE, source.mediaType) ? EXTENSION_BY_MEDIA_TYPE[source.mediaType] : 'pdf'}`;
  return { type: 'input_file', filename, file_data: mediaSourceToUrl(source) };
}

/** `item` with OpenAI's cache breakpoint when the client gave one (Chat or Responses). */
function withBreakpoint(item: Item, part: TextPart | ImagePart | FilePart): Item {
  if (part.cacheBreakpoint) item.prompt_cache_breakpoint = part.cacheBreakpoint;
  return item;
}

/** One IR part of a user/system/developer message (or a tool result) → an input part. */
export function encodeInputPart(part: ContentPart): Item | undefined {
  switch (part.type) {
    case 'text':
      return withBreakpoint({ type: 'input_text', text: part.text }, part);
    case 'image':
      return withBreakpoint(encodeImage(part), part);
    case 'file':
      return withBreakpoint(encodeFile(part), part);
    case 'audio':
      return { type: 'input_audio', input_audio: { data: part.data, format: part.format } };
    default:
      return undefined;
  }
}

function encodeToolResult(part: ToolResultPart): Item {
  const output =
    typeof part.content === 'string'
      ? part.content
      : part.content.flatMap((inner: TextPart | ImagePart | FilePart) => encodeInputPart(inner) ?? []);
  return { type: 'function_call_output', call_id: part.toolCallId, output };
}

/**
 * A reasoning part → a reasoning item, or undefined when it cannot go to an OpenAI upstream.
 * OpenAI accepts its own items: with encrypted_content (stateless), or by id alone (stored).
 */
export function encodeReasoningItem(part: ReasoningPart, foreign: ForeignReasoning): Item | undefined {
  const summary = part.text ? [{ type: 'summary_text', text: part.text }] : [];
  const isForeign = part.signature !== undefined || part.redacted === true || hasMetadata(part.providerMetadata);
  if (part.encrypted !== undefined && (!isForeign || foreign === 'drop')) {
    return { type: 'reasoning', id: part.itemId ?? createReasoningItemId(), summary, encrypted_content: part.encrypted };
  }
  if (!isForeign && part.itemId !== undefined && !isGatewayReasoningId(part.itemId)) {
    return { type: 'reasoning', id: part.itemId, summary };
  }
  // Anthropic thinking, or reasoning text from a Chat upstream: only a gateway reading our stash can use it.
  if (foreign === 'drop') return undefined;
  const item: Item = { type: 'reasoning', id: part.itemId ?? createReasoningItemId(), summary };
  const carried = encryptedContentFor(part);
  if (carried !== undefined) item.encrypted_content = carried;
  return item;
}

/**
 * One assistant turn → items. A call keeps its original `fc_` id only when the turn's reasoning
 * item goes too: OpenAI rejects a stored call id sent without its reasoning item
 * ("…was provided without its required 'reasoning' item"); a fresh id pairs with nothing.
 */
/** A search OpenAI ran (its own `ws_` id, no other vendor's data) replays as its item; another vendor's search leaves only its text. */
function isOpenAISearch(part: WebSearchPart): boolean {
  return part.id.startsWith('ws_') && !part.id.startsWith(OTHER_VENDOR_SEARCH_PREFIX) && part.providerMetadata === undefined;
}

function encodeAssistant(message: Message, foreign: ForeignReasoning, out: Item[]): void {
  const reasoning = new Map<ReasoningPart, Item | undefined>();
  for (const part of message.content) if (part.type === 'reasoning') reasoning.set(part, encodeReasoningItem(part, foreign));
  const paired = [...reasoning.values()].some((item) => item !== undefined);
  let content: Item[] = [];
  const flush = (): void => {
    if (content.length > 0) out.push({ type: 'message', role: 'assistant', content });
    content = [];
  };
  for (const part of message.content) {
    if (part.type === 'text') content.push({ type: 'output_text', text: part.text, annotations: encodeAnnotations(part.text, part.citations) });
    else if (part.type === 'web_search' && isOpenAISearch(part)) {
      flush();
      out.push(webSearchCallItem(part));
    }
    else if (part.type === 'refusal') content.push({ type: 'refusal', refusal: part.refusal });
    else if (part.type === 'image') {
      // An image the model made (an image model's answer, sent back for an edit): OpenAI's own item for one.
      const item = imageGenerationCallItem(part.source);
      if (item) {
        flush();
        out.push(item);
      }
    } else if (part.type === 'reasoning') {
      flush();
      const item = reasoning.get(part);
      if (item) out.push(item);
    } else if (part.type === 'tool_call') {
      flush();
      const id = paired && part.itemId ? part.itemId : functionCallItemIdFor(part.id);
      out.push({ type: 'function_call', id, call_id: part.id, name: part.name, arguments: part.arguments });
    }
  }
  flush();
}

function encodeOther(message: Message, out: Item[]): void {
  const role = message.role === 'tool' ? 'user' : message.role;
  let content: Item[] = [];
  const flush = (): void => {
    if (content.length > 0) out.push({ type: 'message', role, content });
    content = [];
  };
  for (const part of message.content) {
    if (part.type === 'tool_result') {
      flush();
      out.push(encodeToolResult(part));
      continue;
    }
    const encoded = encodeInputPart(part);
    if (encoded) content.push(encoded);
  }
  flush();
}

/** IR messages → Responses input items (tool calls keep call_id = IR id, results reference it). */
export function encodeInput(messages: readonly Message[], foreign: ForeignReasoning): Item[] {
  const out: Item[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') encodeAssistant(message, foreign, out);
    else encodeOther(message, out);
  }
  return out;
}
