import type { AudioPart, FilePart, ImagePart, MediaSource, TextPart } from '../../ir/index.ts';
import { FieldChecker, isRecord, markerOfBreakpoint, splitDataUrl, urlToMediaSource } from '../shared/index.ts';

/**
 * Anthropic's `cache_control` on a Chat content part (OpenRouter and LiteLLM clients send it to
 * reach Claude's prompt cache), or OpenAI's own `prompt_cache_breakpoint`: carried on the IR part
 * for a Messages upstream; the Chat and Responses encoders never write it.
 */
export function withCacheControl<T extends TextPart | ImagePart | FilePart>(out: T, part: Record<string, unknown>, at: string, check: FieldChecker): T {
  const breakpoint = markerOfBreakpoint(part.prompt_cache_breakpoint);
  if (breakpoint) out.cacheBreakpoint = part.prompt_cache_breakpoint as Record<string, unknown>;
  const cache = check.record(part.cache_control, `${at}.cache_control`) ?? breakpoint;
  if (cache) out.cacheControl = cache;
  return out;
}

/** Chat `content` of system/developer/tool messages: a string or text parts. Other part types are skipped. */
export function decodeTextContent(content: unknown, path: string, check: FieldChecker): TextPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (content === undefined || content === null) return [];
  if (!Array.isArray(content)) {
    check.fail(path, 'must be a string or an array of content parts');
    return [];
  }
  const parts: TextPart[] = [];
  content.forEach((part, j) => {
    if (isRecord(part) && part.type === 'text') parts.push(withCacheControl({ type: 'text', text: check.requiredString(part.text, `${path}[${j}].text`) }, part, `${path}[${j}]`, check));
  });
  return parts;
}

export type UserContentPart = TextPart | ImagePart | AudioPart | FilePart;

/** Chat user `content` → IR parts. Unknown part types are dropped (forward compatibility). */
export function decodeUserContent(content: unknown, path: string, check: FieldChecker): UserContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    check.fail(path, content === undefined || content === null ? 'is required' : 'must be a string or an array of content parts');
    return [];
  }
  const parts: UserContentPart[] = [];
  content.forEach((raw, j) => {
    const at = `${path}[${j}]`;
    if (!isRecord(raw)) {
      check.fail(at, 'must be an object');
      return;
    }
    const part = decodeUserPart(raw, at, check);
    if (part) parts.push(part);
  });
  return parts;
}

function decodeUserPart(part: Record<string, unknown>, at: string, check: FieldChecker): UserContentPart | undefined {
  switch (part.type) {
    case 'text':
      return withCacheControl({ type: 'text', text: check.requiredString(part.text, `${at}.text`) }, part, at, check);
    case 'image_url': {
      // Some clients send `image_url` as a bare string.
      const image = typeof part.image_url === 'string' ? { url: part.image_url } : check.requiredRecord(part.image_url, `${at}.image_url`);
      if (!image) return undefined;
      const url = check.requiredString(image.url, `${at}.image_url.url`);
      const out: ImagePart = { type: 'image', source: urlToMediaSource(url) };
      const detail = check.string(image.detail, `${at}.image_url.detail`);
      if (detail) out.detail = detail;
      return withCacheControl(out, part, at, check);
    }
    case 'input_audio': {
      const audio = check.requiredRecord(part.input_audio, `${at}.input_audio`);
      if (!audio) return undefined;
      return {
        type: 'audio',
        data: check.requiredString(audio.data, `${at}.input_audio.data`),
        format: check.requiredString(audio.format, `${at}.input_audio.format`),
      };
    }
    case 'file': {
      const file = decodeFilePart(part, at, check);
      return file && withCacheControl(file, part, at, check);
    }
    default:
      return undefined;
  }
}

/**
 * Chat `file` part → IR file. Besides OpenAI's `file_data` (data URL or bare base64) and
 * `file_id`, the gateway accepts `file_url` (its own extension, see encode-messages.ts).
 */
function decodeFilePart(part: Record<string, unknown>, at: string, check: FieldChecker): FilePart | undefined {
  const file = check.requiredRecord(part.file, `${at}.file`);
  if (!file) return undefined;
  const filename = check.string(file.filename, `${at}.file.filename`);
  const data = check.string(file.file_data, `${at}.file.file_data`);
  const fileId = check.string(file.file_id, `${at}.file.file_id`);
  const fileUrl = check.string(file.file_url, `${at}.file.file_url`);
  let source: MediaSource;
  if (data !== undefined) {
    const split = splitDataUrl(data);
    source = split
      ? { kind: 'base64', mediaType: split.mediaType, data: split.data }
      : { kind: 'base64', mediaType: guessMediaType(filename), data };
  } else if (fileId !== undefined) {
    source = { kind: 'file_id', fileId };
  } else if (fileUrl !== undefined) {
    source = { kind: 'url', url: fileUrl };
  } else {
    check.fail(`${at}.file`, 'needs file_data, file_id or file_url');
    return undefined;
  }
  return filename ? { type: 'file', source, filename } : { type: 'file', source };
}

function guessMediaType(filename: string | undefined): string {
  if (filename && /\.(txt|md)$/i.test(filename)) return 'text/plain';
  return 'application/pdf';
}
