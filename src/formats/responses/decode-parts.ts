import { z } from 'zod';
import type { AudioPart, ContentPart, FilePart, ImagePart, MediaSource, TextPart } from '../../ir/index.ts';
import { markerOfBreakpoint, splitDataUrl, urlToMediaSource } from '../shared/index.ts';
import { invalid, parseOrThrow } from './validate.ts';
import { decodeAnnotations } from './map-web-search.ts';

const textSchema = z.looseObject({ text: z.string() });
const refusalSchema = z.looseObject({ refusal: z.string() });
const imageSchema = z.looseObject({
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const fileSchema = z.looseObject({
  file_data: z.string().nullish(),
  file_id: z.string().nullish(),
  file_url: z.string().nullish(),
  filename: z.string().nullish(),
});
const audioSchema = z.looseObject({ input_audio: z.looseObject({ data: z.string(), format: z.string() }) });

const MEDIA_TYPE_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

function mediaTypeForFilename(filename: string | null | undefined): string {
  const extension = filename?.split('.').pop()?.toLowerCase();
  return (extension && Object.hasOwn(MEDIA_TYPE_BY_EXTENSION, extension) && MEDIA_TYPE_BY_EXTENSION[extension]) || 'application/pdf';
}

function decodeImage(part: unknown, path: PropertyKey[]): ImagePart {
  const image = parseOrThrow(imageSchema, part, path);
  let source: MediaSource;
  if (image.image_url) {
    source = urlToMediaSource(image.image_url);
  } else if (image.file_id) {
    source = { kind: 'file_id', fileId: image.file_id };
  } else {
    return invalid(path, 'input_image needs image_url or file_id');
  }
  const out: ImagePart = { type: 'image', source };
  if (image.detail) out.detail = image.detail;
  return out;
}

function decodeFile(part: unknown, path: PropertyKey[]): FilePart {
  const file = parseOrThrow(fileSchema, part, path);
  let source: MediaSource;
  if (file.file_data) {
    source = { kind: 'base64', ...(splitDataUrl(file.file_data) ?? { mediaType: mediaTypeForFilename(file.filename), data: file.file_data }) };
  } else if (file.file_id) {
    source = { kind: 'file_id', fileId: file.file_id };
  } else if (file.file_url) {
    source = { kind: 'url', url: file.file_url };
  } else {
    return invalid(path, 'input_file needs file_data, file_id or file_url');
  }
  const out: FilePart = { type: 'file', source };
  if (file.filename) out.filename = file.filename;
  return out;
}

function decodeAudio(part: unknown, path: PropertyKey[]): AudioPart {
  const audio = parseOrThrow(audioSchema, part, path);
  return { type: 'audio', data: audio.input_audio.data, format: audio.input_audio.format };
}

function partType(part: unknown, path: PropertyKey[]): string {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return invalid(path, 'Expected a content part object');
  const type = (part as { type?: unknown }).type;
  if (typeof type !== 'string') return invalid([...path, 'type'], 'Expected a string');
  return type;
}

/** OpenAI's explicit cache breakpoint on an input part → the IR's cache marker (for a Messages upstream). */
function withBreakpoint<T extends TextPart | ImagePart | FilePart>(out: T, part: unknown): T {
  const breakpoint = (part as { prompt_cache_breakpoint?: unknown }).prompt_cache_breakpoint;
  const marker = markerOfBreakpoint(breakpoint);
  if (marker) {
    out.cacheControl = marker;
    out.cacheBreakpoint = breakpoint as Record<string, unknown>;
  }
  return out;
}

/** A Responses content part of a message (input or prior output) → IR part. */
export function decodeContentPart(part: unknown, path: PropertyKey[]): ContentPart {
  const type = partType(part, path);
  switch (type) {
    case 'input_text':
      return withBreakpoint({ type: 'text', text: parseOrThrow(textSchema, part, path).text }, part);
    case 'output_text': {
      const text: TextPart = { type: 'text', text: parseOrThrow(textSchema, part, path).text };
      const citations = decodeAnnotations((part as { annotations?: unknown }).annotations);
      if (citations) text.citations = citations;
      return text;
    }
    case 'refusal':
      return { type: 'refusal', refusal: parseOrThrow(refusalSchema, part, path).refusal };
    case 'input_image':
      return withBreakpoint(decodeImage(part, path), part);
    case 'input_file':
      return withBreakpoint(decodeFile(part, path), part);
    case 'input_audio':
      return decodeAudio(part, path);
    default:
      return invalid([...path, 'type'], `Unsupported content part type '${type}'`);
  }
}

/** The `output` of a function_call_output: a string or input_text / input_image / input_file parts. */
export function decodeToolOutput(output: unknown, path: PropertyKey[]): string | Array<TextPart | ImagePart | FilePart> {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return invalid(path, 'Expected a string or an array of content parts');
  return output.map((part, index) => {
    const decoded = decodeContentPart(part, [...path, index]);
    if (decoded.type === 'text' || decoded.type === 'image' || decoded.type === 'file') return decoded;
    return invalid([...path, index, 'type'], 'Tool output parts must be input_text, input_image or input_file');
  });
}
