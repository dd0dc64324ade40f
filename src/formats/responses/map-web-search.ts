import type { UrlCitation, WebSearchPart, WebSearchSource, WebSearchTool } from '../../ir/index.ts';
import { decodeDomains, decodeSearchLocation, hasMetadata, isRecord, readToolId, toolIdForClient } from '../shared/index.ts';

type Item = Record<string, unknown>;

/** Responses hosted web-search tool types (`web_search`, `web_search_preview`, dated versions of both). */
export function isWebSearchToolType(type: unknown): boolean {
  return typeof type === 'string' && /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/.test(type);
}

/** `{type: "web_search", search_context_size, user_location, filters.allowed_domains}` → IR. */
export function decodeWebSearchTool(tool: Item): WebSearchTool {
  const out: WebSearchTool = {};
  if (typeof tool.search_context_size === 'string') out.contextSize = tool.search_context_size;
  const domains = isRecord(tool.filters) ? decodeDomains(tool.filters.allowed_domains) : undefined;
  const location = decodeSearchLocation(tool.user_location);
  if (domains) out.allowedDomains = domains;
  if (location) out.userLocation = location;
  return out;
}

/** IR → the Responses `web_search` tool (what a Responses upstream runs for a client of another format). */
export function encodeWebSearchTool(search: WebSearchTool): Item {
  const tool: Item = { type: 'web_search' };
  if (search.contextSize !== undefined) tool.search_context_size = search.contextSize;
  if (search.allowedDomains) tool.filters = { allowed_domains: search.allowedDomains };
  if (search.userLocation) tool.user_location = { type: 'approximate', ...search.userLocation };
  return tool;
}

/** A `web_search_call` item (output or replayed input) → IR. */
export function decodeWebSearchCall(item: Item): WebSearchPart {
  const carried = readCarriedSearch(typeof item.id === 'string' ? item.id : '');
  const part: WebSearchPart = { type: 'web_search', id: carried.id };
  const action = isRecord(item.action) ? item.action : undefined;
  if (typeof action?.query === 'string') part.query = action.query;
  else if (Array.isArray(action?.queries) && typeof action.queries[0] === 'string') part.query = action.queries[0];
  if (Array.isArray(action?.sources)) {
    part.sources = action.sources.flatMap((source): WebSearchSource[] => (isRecord(source) && typeof source.url === 'string' ? [{ url: source.url }] : []));
  }
  if (item.status === 'failed') part.error = 'failed';
  // Another vendor's search carried its own sources (their opaque content) in the id: they win.
  if (carried.sources) part.sources = carried.sources;
  if (carried.providerMetadata) part.providerMetadata = carried.providerMetadata;
  return part;
}

/** The key under which a carried id holds the search's own sources. */
const SOURCES_KEY = 'gateway_web_search';

function readCarriedSearch(id: string): { id: string; sources?: WebSearchSource[]; providerMetadata?: WebSearchPart['providerMetadata'] } {
  if (!id.startsWith(OTHER_VENDOR_SEARCH_PREFIX)) return { id };
  const read = readToolId(id.slice(OTHER_VENDOR_SEARCH_PREFIX.length));
  const { [SOURCES_KEY]: own, ...rest } = read.providerMetadata ?? {};
  const out: ReturnType<typeof readCarriedSearch> = { id: read.id };
  if (Array.isArray(own?.sources)) out.sources = own.sources.filter((source): source is WebSearchSource => isRecord(source) && typeof source.url === 'string');
  if (hasMetadata(rest)) out.providerMetadata = rest;
  return out;
}

/**
 * IR → a `web_search_call` item. A search another vendor ran gets a `ws_` id of ours; its
 * sources are listed in `action.sources` (what OpenAI sends with `include: ["web_search_call.action.sources"]`).
 */
export function webSearchCallItem(part: WebSearchPart, status = part.error ? 'failed' : 'completed'): Item {
  const action: Item = { type: 'search', query: part.query ?? '' };
  if (part.sources && part.sources.length > 0) action.sources = part.sources.map((source) => ({ type: 'url', url: source.url }));
  return { id: webSearchItemId(part), type: 'web_search_call', status, action };
}

/** The id prefix of a search another vendor ran (never replayed to OpenAI, which did not run it). */
export const OTHER_VENDOR_SEARCH_PREFIX = 'ws_gw_';

/**
 * The item id for a search: OpenAI's own, else ours around the vendor's id — carrying, when the
 * search has opaque data (Anthropic's `encrypted_content` of each result), its sources and
 * metadata in the one carry encoding (toolIdForClient), so a client that sends the item back
 * gives the vendor its own search again, byte-exact.
 */
export function webSearchItemId(part: Pick<WebSearchPart, 'id' | 'sources' | 'providerMetadata'>): string {
  if (part.id.startsWith('ws_')) return part.id;
  const opaque = hasMetadata(part.providerMetadata) || (part.sources ?? []).some((source) => hasMetadata(source.providerMetadata));
  const metadata = opaque ? { ...part.providerMetadata, [SOURCES_KEY]: { sources: part.sources ?? [] } } : undefined;
  return `${OTHER_VENDOR_SEARCH_PREFIX}${toolIdForClient(part.id, metadata)}`;
}

/** A text's IR citations → `url_citation` annotations (a citation without a span covers the whole text). */
export function encodeAnnotations(text: string, citations: readonly UrlCitation[] | undefined): Item[] {
  return (citations ?? []).map((citation) => annotationOf(citation, text.length));
}

export function annotationOf(citation: UrlCitation, length: number): Item {
  return { type: 'url_citation', start_index: citation.startIndex ?? 0, end_index: citation.endIndex ?? length, url: citation.url, title: citation.title ?? '' };
}

/** `url_citation` annotations → IR citations (other annotation types have no IR form). */
export function decodeAnnotations(value: unknown): UrlCitation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = value.flatMap((raw): UrlCitation[] => (isRecord(raw) ? [annotationToCitation(raw)].filter((c): c is UrlCitation => c !== undefined) : []));
  return out.length > 0 ? out : undefined;
}

export function annotationToCitation(raw: Item): UrlCitation | undefined {
  if (raw.type !== 'url_citation' || typeof raw.url !== 'string') return undefined;
  const citation: UrlCitation = { type: 'url', url: raw.url };
  if (typeof raw.title === 'string' && raw.title !== '') citation.title = raw.title;
  if (typeof raw.start_index === 'number') citation.startIndex = raw.start_index;
  if (typeof raw.end_index === 'number') citation.endIndex = raw.end_index;
  return citation;
}
