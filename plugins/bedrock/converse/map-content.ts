// Converse content blocks ↔ IR content parts. A `cachePoint` block marks the block before it
// (Anthropic's `cache_control` in the IR); reasoning keeps its signature and redacted bytes as sent.
import { GatewayError, type ContentPart } from 'gateway/plugin-kit';
import { argumentsObject, isRecord, recordOf, stringOf, type Json } from './json.ts';

const CACHE_POINT = { cachePoint: { type: 'default' } };
const EPHEMERAL = { type: 'ephemeral' };

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};
const MEDIA_TYPE_OF_DOCUMENT = Object.fromEntries(Object.entries(DOCUMENT_FORMATS).map(([type, format]) => [format, type]));

function refuse(message: string): never {
  throw new GatewayError('validation_error', message);
}

/** base64 bytes and media type of an IR media source; Converse takes bytes (or S3), never an http URL. */
function bytesOf(source: Extract<ContentPart, { type: 'image' }>['source'], what: string): { mediaType: string; data: string } {
  if (source.kind === 'base64') return { mediaType: source.mediaType, data: source.data };
  if (source.kind === 'text') return { mediaType: source.mediaType, data: Buffer.from(source.data, 'utf8').toString('base64') };
  if (source.kind === 'url') {
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(source.url);
    if (match) return { mediaType: match[1], data: match[2] };
    refuse(`Bedrock Converse takes ${what}s as bytes, not URLs: send the ${what} as base64 data.`);
  }
  refuse(`Bedrock Converse cannot read a file id: send the ${what} as base64 data.`);
}

/** Converse document names: letters, digits, spaces, hyphens, parentheses and brackets, no doubled spaces. */
function documentName(filename: string | undefined, index: number): string {
  const base = (filename ?? '').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ').replace(/\s+/g, ' ').trim();
  return base.slice(0, 200) || `document ${index + 1}`;
}

let documents = 0;

/** One IR part → its Converse blocks (a cache marker adds a `cachePoint` after it). */
export function encodeConversePart(part: ContentPart): Json[] {
  const blocks = encodeBlock(part);
  const marked = 'cacheControl' in part && part.cacheControl !== undefined;
  return marked && blocks.length > 0 ? [...blocks, CACHE_POINT] : blocks;
}

function encodeBlock(part: ContentPart): Json[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'refusal':
      return [{ text: part.refusal }];
    case 'image': {
      const { mediaType, data } = bytesOf(part.source, 'image');
      const format = mediaType.replace(/^image\//, '').replace('jpg', 'jpeg');
      if (!IMAGE_FORMATS.has(format)) refuse(`Bedrock Converse takes png, jpeg, gif or webp images, not ${mediaType}.`);
      return [{ image: { format, source: { bytes: data } } }];
    }
    case 'file': {
      const { mediaType, data } = bytesOf(part.source, 'document');
      const format = DOCUMENT_FORMATS[mediaType];
      if (!format) refuse(`Bedrock Converse does not take ${mediaType} documents.`);
      return [{ document: { format, name: documentName(part.filename ?? part.title, documents++ % 1000), source: { bytes: data } } }];
    }
    case 'tool_call':
      return [{ toolUse: { toolUseId: part.id, name: part.name, input: argumentsObject(part.arguments) } }];
    case 'tool_result': {
      const content = typeof part.content === 'string' ? [{ text: part.content }] : part.content.flatMap(encodeBlock);
      return [{ toolResult: { toolUseId: part.toolCallId, content: content.length ? content : [{ text: '' }], ...(part.isError ? { status: 'error' } : {}) } }];
    }
    case 'reasoning':
      if (part.redacted) return [{ reasoningContent: { redactedContent: part.data ?? '' } }];
      return [{ reasoningContent: { reasoningText: { text: part.text, ...(part.signature !== undefined ? { signature: part.signature } : {}) } } }];
    case 'audio':
      return refuse('Bedrock Converse does not take audio input.');
    default:
      return [];
  }
}

/** Converse blocks → IR parts; `cachePoint` marks the part before it. */
export function decodeConverseContent(blocks: unknown, where: string): ContentPart[] {
  if (!Array.isArray(blocks)) refuse(`${where} must be a list of content blocks.`);
  const parts: ContentPart[] = [];
  for (const raw of blocks) {
    const block = recordOf(raw);
    if (isRecord(block.cachePoint)) {
      const last = parts[parts.length - 1];
      if (last && (last.type === 'text' || last.type === 'image' || last.type === 'file' || last.type === 'tool_call' || last.type === 'tool_result')) last.cacheControl = { ...EPHEMERAL };
      continue;
    }
    const part = decodeBlock(block, where);
    if (part) parts.push(part);
  }
  return parts;
}

function decodeBlock(block: Json, where: string): ContentPart | undefined {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (isRecord(block.image)) {
    const format = stringOf(block.image.format) ?? 'png';
    return { type: 'image', source: { kind: 'base64', mediaType: `image/${format}`, data: stringOf(recordOf(block.image.source).bytes) ?? '' } };
  }
  if (isRecord(block.document)) {
    const format = stringOf(block.document.format) ?? 'pdf';
    const source = recordOf(block.document.source);
    const mediaType = MEDIA_TYPE_OF_DOCUMENT[format] ?? 'application/octet-stream';
    const name = stringOf(block.document.name);
    if (typeof source.text === 'string') return { type: 'file', source: { kind: 'text', mediaType, data: source.text }, ...(name ? { filename: name } : {}) };
    return { type: 'file', source: { kind: 'base64', mediaType, data: stringOf(source.bytes) ?? '' }, ...(name ? { filename: name } : {}) };
  }
  if (isRecord(block.toolUse)) {
    return { type: 'tool_call', id: stringOf(block.toolUse.toolUseId) ?? '', name: stringOf(block.toolUse.name) ?? '', arguments: JSON.stringify(block.toolUse.input ?? {}) };
  }
  if (isRecord(block.toolResult)) {
    const result = block.toolResult;
    const content = (Array.isArray(result.content) ? result.content : []).map((c) => {
      const item = recordOf(c);
      if (item.json !== undefined) return { type: 'text' as const, text: JSON.stringify(item.json) };
      return decodeBlock(item, where);
    });
    const parts = content.filter((p): p is Extract<ContentPart, { type: 'text' | 'image' | 'file' }> => p?.type === 'text' || p?.type === 'image' || p?.type === 'file');
    return { type: 'tool_result', toolCallId: stringOf(result.toolUseId) ?? '', content: parts, ...(result.status === 'error' ? { isError: true } : {}) };
  }
  if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    if (typeof reasoning.redactedContent === 'string') return { type: 'reasoning', text: '', redacted: true, data: reasoning.redactedContent };
    const text = recordOf(reasoning.reasoningText);
    const signature = stringOf(text.signature);
    return { type: 'reasoning', text: stringOf(text.text) ?? '', ...(signature !== undefined ? { signature } : {}) };
  }
  return undefined; // guardContent, video, citations…: no IR slot; a passthrough keeps them
}
