import type { UrlCitation, WebSearchTool } from '../../ir/index.ts';
import { decodeSearchLocation, isRecord } from '../shared/index.ts';

/** `web_search_options: {search_context_size, user_location: {type: "approximate", approximate: {…}}}` → IR. */
export function decodeWebSearchOptions(value: unknown): WebSearchTool | undefined {
  if (!isRecord(value)) return undefined;
  const out: WebSearchTool = {};
  if (typeof value.search_context_size === 'string') out.contextSize = value.search_context_size;
  const location = isRecord(value.user_location) ? decodeSearchLocation(value.user_location.approximate) : undefined;
  if (location) out.userLocation = location;
  return out;
}

/** A citation of text that starts at `offset` in the message content (length `length`) → Chat's `url_citation` annotation. */
export function encodeChatAnnotation(citation: UrlCitation, offset: number, length: number): Record<string, unknown> {
  return {
    type: 'url_citation',
    url_citation: { start_index: offset + (citation.startIndex ?? 0), end_index: offset + (citation.endIndex ?? length), url: citation.url, title: citation.title ?? '' },
  };
}
