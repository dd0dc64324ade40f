import type { MediaSource } from '../../ir/index.ts';

const DATA_URL = /^data:([^;,]+)((?:;[^;,=]+=[^;,]+)*);base64,/i;

/** Splits `data:<mime>;base64,<data>` into media type and payload; undefined for anything else. */
export function splitDataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const match = DATA_URL.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1].toLowerCase(), data: url.slice(match[0].length) };
}

/** Builds `data:<mime>;base64,<data>`. */
export function joinDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** A URL as the OpenAI formats carry it (http(s) or data URL) → IR source; base64 data URLs are split. */
export function urlToMediaSource(url: string): MediaSource {
  const split = splitDataUrl(url);
  return split ? { kind: 'base64', mediaType: split.mediaType, data: split.data } : { kind: 'url', url };
}

/** IR source → a URL the OpenAI formats accept (data URL for inline data); undefined for file ids. */
export function mediaSourceToUrl(source: MediaSource): string | undefined {
  switch (source.kind) {
    case 'url':
      return source.url;
    case 'base64':
      return joinDataUrl(source.mediaType, source.data);
    case 'text':
      return joinDataUrl(source.mediaType, encodeBase64(source.data));
    case 'file_id':
      return undefined;
  }
}

/** UTF-8 text → base64 (Buffer-free so the formats stay runtime-neutral). */
export function encodeBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Base64 in the standard alphabet, padded: Google takes bytes in either alphabet, padded or not
 * (proto3 JSON), and google-genai for Python writes them URL-safe; other APIs want the standard.
 * Unchanged (the same string) when it is standard and padded already.
 */
export function standardBase64(data: string): string {
  if (data.length % 4 === 0 && !/[-_]/.test(data)) return data;
  const standard = data.replace(/-/g, '+').replace(/_/g, '/');
  return standard.length % 4 === 0 ? standard : standard + '='.repeat(4 - (standard.length % 4));
}

/** Base64 → UTF-8 text (Buffer-free, as `encodeBase64`). */
export function decodeBase64(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
