import type { ContentPart, FilePart, ImagePart, Message, ReasoningPart, TextPart, ToolResultPart } from '../../ir/index.ts';
import { validationError } from '../../errors/index.ts';
import { mediaSourceToUrl } from '../shared/index.ts';
import { encodeReasoningDetails, isPlainReasoningOf, reasoningText } from './map-reasoning.ts';
import type { ChatToolCall } from './types.ts';

type ChatMessage = Record<string, unknown>;
type Media = ImagePart | FilePart;

/**
 * IR system + messages → Chat `messages`. System text goes first, one system message per
 * part; mid-conversation system/developer messages keep their place and role (the reasoning
 * model adaptation turns system into developer before this runs).
 * Tool results become one `tool` message each; images and documents inside them cannot go in
 * a tool message, so they follow the run of tool messages in one user message.
 * Reasoning is sent back only when `sendReasoning` is set (as `reasoning_content` +
 * `reasoning_details`, for OpenRouter-style or DeepSeek-style upstreams); by default it is
 * dropped, since OpenAI cannot use another provider's reasoning and rejects unknown fields; the
 * upstream model's own plain reasoning goes back to it as `reasoning_content` (DeepSeek's thinking
 * mode refuses a tool loop without it; map-reasoning.ts).
 */
export function encodeChatMessages(system: TextPart[], messages: Message[], sendReasoning = false, upstreamModel = ''): ChatMessage[] {
  const out: ChatMessage[] = system.map((part) => ({ role: 'system', content: part.cacheBreakpoint ? [textPart(part)] : part.text }));
  let media: Media[] = [];
  const flushMedia = (): void => {
    if (media.length > 0) out.push({ role: 'user', content: media.map(encodeUserPart) });
    media = [];
  };
  for (const message of mergeAssistantRuns(messages)) {
    const results = message.content.filter((part): part is ToolResultPart => part.type === 'tool_result');
    for (const result of results) {
      out.push({ role: 'tool', tool_call_id: result.toolCallId, content: encodeToolResultContent(result, media) });
    }
    const rest = results.length === 0 ? message.content : message.content.filter((part) => part.type !== 'tool_result');
    if (rest.length === 0 && message.role !== 'assistant') continue;
    flushMedia();
    const encoded = encodeMessage(message, rest, sendReasoning, upstreamModel);
    if (encoded) out.push(encoded);
  }
  flushMedia();
  return out;
}

/**
 * Anthropic allows (and merges) consecutive assistant turns; OpenAI wants an assistant message
 * with tool_calls to be followed by its tool messages, so consecutive assistant turns become one.
 */
function mergeAssistantRuns(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'assistant' && last?.role === 'assistant') out[out.length - 1] = { ...last, content: [...last.content, ...message.content] };
    else out.push(message);
  }
  return out;
}

function encodeMessage(message: Message, content: ContentPart[], sendReasoning: boolean, upstreamModel: string): ChatMessage | undefined {
  const named = message.name ? { name: message.name } : {};
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: message.role, content: textOnly(content), ...named };
    case 'assistant':
      return { ...encodeAssistant(content, sendReasoning, upstreamModel), ...named };
    case 'user':
    case 'tool': {
      if (content.length === 0) return undefined;
      const parts = content.filter(isUserPart).map(encodeUserPart);
      const only = parts.length === 1 ? parts[0] : undefined;
      return { role: 'user', content: only?.type === 'text' && !only.prompt_cache_breakpoint ? only.text : parts, ...named };
    }
  }
}

function encodeAssistant(content: ContentPart[], sendReasoning: boolean, upstreamModel: string): ChatMessage {
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const refusal = content.flatMap((part) => (part.type === 'refusal' ? [part.refusal] : [])).join('');
  const calls: ChatToolCall[] = content.flatMap((part) =>
    part.type === 'tool_call' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: part.arguments } }] : [],
  );
  const message: ChatMessage = { role: 'assistant', content: text === '' && (calls.length > 0 || refusal !== '') ? null : text };
  if (refusal !== '') message.refusal = refusal;
  const reasoning = sendReasoning ? reasoningParts(content) : [];
  if (reasoning.length > 0) {
    const readable = reasoningText(reasoning);
    if (readable !== undefined) message.reasoning_content = readable;
    message.reasoning_details = encodeReasoningDetails(reasoning);
  } else {
    const own = reasoningText(content.filter((part): part is ReasoningPart => part.type === 'reasoning' && isPlainReasoningOf(part, upstreamModel)));
    if (own !== undefined) message.reasoning_content = own;
  }
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function encodeToolResultContent(result: ToolResultPart, media: Media[]): string | ChatTextPart[] {
  if (typeof result.content === 'string') return result.content;
  const texts: ChatTextPart[] = [];
  for (const part of result.content) {
    if (part.type === 'text') texts.push(textPart(part));
    else media.push(part);
  }
  if (texts.length === 0) return '';
  return texts.length === 1 && !texts[0].prompt_cache_breakpoint ? texts[0].text : texts;
}

/** A Chat text part, with OpenAI's cache breakpoint when the client gave one. */
type ChatTextPart = { type: 'text'; text: string; prompt_cache_breakpoint?: Record<string, unknown> };

function textPart(part: TextPart): ChatTextPart {
  return part.cacheBreakpoint ? { type: 'text', text: part.text, prompt_cache_breakpoint: part.cacheBreakpoint } : { type: 'text', text: part.text };
}

/** `part` with OpenAI's cache breakpoint added when the IR part has one. */
function withBreakpoint<T extends object>(out: T, part: { cacheBreakpoint?: Record<string, unknown> }): T {
  if (part.cacheBreakpoint) (out as Record<string, unknown>).prompt_cache_breakpoint = part.cacheBreakpoint;
  return out;
}

type UserPart = TextPart | ImagePart | FilePart | Extract<ContentPart, { type: 'audio' | 'refusal' }>;

function isUserPart(part: ContentPart): part is UserPart {
  return part.type === 'text' || part.type === 'image' || part.type === 'file' || part.type === 'audio' || part.type === 'refusal';
}

type ChatUserPart =
  | ChatTextPart
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'file'; file: Record<string, string> };

function encodeUserPart(part: UserPart): ChatUserPart {
  switch (part.type) {
    case 'text':
      return textPart(part);
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'audio':
      return { type: 'input_audio', input_audio: { data: part.data, format: part.format } };
    case 'image': {
      const url = mediaSourceToUrl(part.source);
      if (url === undefined) throw validationError({ image: 'file ids of images cannot be sent to a Chat Completions upstream' });
      return withBreakpoint({ type: 'image_url', image_url: part.detail ? { url, detail: part.detail } : { url } }, part);
    }
    case 'file':
      return withBreakpoint(encodeFilePart(part), part);
  }
}

/**
 * IR document → Chat `file` part. Chat has no URL form for files, so a URL document is sent
 * as `file.file_url`: a gateway extension (the spec's "document blocks become file_url content
 * parts") that chat-only providers behind the gateway accept; OpenAI itself does not.
 * Inline data becomes `file_data` as a data URL with a filename (OpenAI wants one); plain-text
 * documents are sent as text, since Chat file inputs take PDFs only.
 */
function encodeFilePart(part: FilePart): ChatUserPart {
  const source = part.source;
  switch (source.kind) {
    case 'text':
      return { type: 'text', text: part.title ? `${part.title}\n\n${source.data}` : source.data };
    case 'file_id':
      return { type: 'file', file: { file_id: source.fileId } };
    case 'url':
      return { type: 'file', file: withName({ file_url: source.url }, part.filename ?? part.title) };
    case 'base64':
      return {
        type: 'file',
        file: { file_data: `data:${source.mediaType};base64,${source.data}`, filename: part.filename ?? part.title ?? defaultFilename(source.mediaType) },
      };
  }
}

function withName(file: Record<string, string>, filename: string | undefined): Record<string, string> {
  return filename ? { ...file, filename } : file;
}

function defaultFilename(mediaType: string): string {
  return mediaType === 'application/pdf' ? 'document.pdf' : 'document';
}

function textOnly(content: ContentPart[]): string | ChatTextPart[] {
  const texts = content.filter((part): part is TextPart => part.type === 'text');
  return texts.length === 1 && !texts[0].cacheBreakpoint ? texts[0].text : texts.map(textPart);
}

/** Reasoning parts of assistant content (used by the response encoder). */
export function reasoningParts(content: ContentPart[]): ReasoningPart[] {
  return content.filter((part): part is ReasoningPart => part.type === 'reasoning');
}
