import type { ContentPart, TextPart, UrlCitation, WebSearchPart, WebSearchSource, WebSearchTool } from '../../ir/index.ts';
import { decodeDomains, decodeSearchLocation, isRecord } from '../shared/index.ts';
import type { MessagesBlock } from './types.ts';

type Raw = Record<string, unknown>;

/** The server tool a converted web search becomes (the version every current Claude model takes). */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';

/** The namespace of Anthropic's opaque search data in `providerMetadata`. */
const NS = 'anthropic';

/** Anthropic's web-search server tool, any version (`web_search_20250305`, …). */
export function isWebSearchServerTool(tool: Raw): boolean {
  return typeof tool.type === 'string' && /^web_search_\d{8}$/.test(tool.type);
}

/** `{type: "web_search_20250305", max_uses, allowed_domains, blocked_domains, user_location}` → IR. */
export function decodeWebSearchServerTool(tool: Raw): WebSearchTool {
  const out: WebSearchTool = {};
  if (typeof tool.max_uses === 'number') out.maxUses = tool.max_uses;
  const allowed = decodeDomains(tool.allowed_domains);
  const blocked = decodeDomains(tool.blocked_domains);
  const location = decodeSearchLocation(tool.user_location);
  if (allowed) out.allowedDomains = allowed;
  if (blocked) out.blockedDomains = blocked;
  if (location) out.userLocation = location;
  return out;
}

/** IR → the server tool. Anthropic takes allowed or blocked domains, not both: allowed wins. */
export function encodeWebSearchServerTool(search: WebSearchTool): Raw {
  const tool: Raw = { type: WEB_SEARCH_TOOL_TYPE, name: 'web_search' };
  if (search.maxUses !== undefined) tool.max_uses = search.maxUses;
  if (search.allowedDomains) tool.allowed_domains = search.allowedDomains;
  else if (search.blockedDomains) tool.blocked_domains = search.blockedDomains;
  if (search.userLocation) tool.user_location = { type: 'approximate', ...search.userLocation };
  return tool;
}

/** A `server_tool_use` block of the web search → the call half of an IR search part. */
export function decodeServerToolUse(block: Raw): WebSearchPart | undefined {
  if (block.name !== 'web_search' || typeof block.id !== 'string') return undefined;
  const part: WebSearchPart = { type: 'web_search', id: block.id };
  const input = isRecord(block.input) ? block.input : undefined;
  if (typeof input?.query === 'string') part.query = input.query;
  return part;
}

/** A `web_search_tool_result` block → the result half (sources with their opaque content, or the error). */
export function decodeWebSearchResult(block: Raw): WebSearchPart | undefined {
  if (typeof block.tool_use_id !== 'string') return undefined;
  const part: WebSearchPart = { type: 'web_search', id: block.tool_use_id };
  const content = block.content;
  if (isRecord(content) && content.type === 'web_search_tool_result_error') part.error = typeof content.error_code === 'string' ? content.error_code : 'unavailable';
  else if (Array.isArray(content)) part.sources = content.flatMap((raw): WebSearchSource[] => (isRecord(raw) && typeof raw.url === 'string' ? [decodeSource(raw)] : []));
  return part;
}

function decodeSource(raw: Raw): WebSearchSource {
  const source: WebSearchSource = { url: raw.url as string };
  if (typeof raw.title === 'string') source.title = raw.title;
  if (typeof raw.page_age === 'string') source.pageAge = raw.page_age;
  if (typeof raw.encrypted_content === 'string') source.providerMetadata = { [NS]: { encryptedContent: raw.encrypted_content } };
  return source;
}

/** Joins each result block's half into the call's part before it (same id); returns the parts in order. */
export function joinWebSearchParts(parts: ContentPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    const previous = out.at(-1);
    if (part.type === 'web_search' && previous?.type === 'web_search' && previous.id === part.id && previous.sources === undefined && previous.error === undefined) {
      out[out.length - 1] = { ...previous, ...part, ...(previous.query !== undefined ? { query: previous.query } : {}) };
    } else out.push(part);
  }
  return out;
}

/** Text `citations[]` → IR: the web-search ones (each covers its whole block). */
export function decodeCitations(value: unknown): UrlCitation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = value.flatMap((raw): UrlCitation[] => {
    if (!isRecord(raw) || raw.type !== 'web_search_result_location' || typeof raw.url !== 'string') return [];
    const citation: UrlCitation = { type: 'url', url: raw.url };
    if (typeof raw.title === 'string') citation.title = raw.title;
    if (typeof raw.cited_text === 'string') citation.citedText = raw.cited_text;
    if (typeof raw.encrypted_index === 'string') citation.providerMetadata = { [NS]: { encryptedIndex: raw.encrypted_index } };
    return [citation];
  });
  return out.length > 0 ? out : undefined;
}

function opaque(holder: { providerMetadata?: Record<string, Record<string, unknown>> }, key: string): string | undefined {
  const value = holder.providerMetadata?.[NS]?.[key];
  return typeof value === 'string' ? value : undefined;
}

function citationBlock(citation: UrlCitation, citedText: string, encryptedIndex: string): Raw {
  return { type: 'web_search_result_location', url: citation.url, title: citation.title ?? null, cited_text: citation.citedText ?? citedText, encrypted_index: encryptedIndex };
}

/**
 * A search part → its two blocks (the call alone while it has no result). For a client: always (another vendor's search has no opaque
 * content: empty strings). For an Anthropic upstream: only a search Anthropic ran, with every
 * result's `encrypted_content` — anything else would be refused, so the text stays alone.
 */
export function encodeWebSearchBlocks(part: WebSearchPart, to: 'client' | 'upstream'): MessagesBlock[] {
  const sources = part.sources ?? [];
  if (to === 'upstream' && (part.id === '' || (!part.error && (part.sources === undefined || sources.some((source) => opaque(source, 'encryptedContent') === undefined))))) return [];
  const call: MessagesBlock = { type: 'server_tool_use', id: part.id, name: 'web_search', input: { query: part.query ?? '' } };
  // A search whose result has not come (the turn paused) is its call alone.
  if (part.sources === undefined && part.error === undefined) return [call];
  const content = part.error
    ? { type: 'web_search_tool_result_error', error_code: part.error }
    : sources.map((source) => ({ type: 'web_search_result', url: source.url, title: source.title ?? '', encrypted_content: opaque(source, 'encryptedContent') ?? '', page_age: source.pageAge ?? null }));
  return [call, { type: 'web_search_tool_result', tool_use_id: part.id, content }];
}

/**
 * A cited text part → text blocks with `citations`. For a client: a citation with a span splits
 * the text so each cited span is its own block (Anthropic's citations cover whole blocks). For
 * an Anthropic upstream: citations only when each carries Anthropic's `encrypted_index`.
 */
export function encodeCitedText(part: TextPart, to: 'client' | 'upstream'): MessagesBlock[] {
  const citations = part.citations ?? [];
  if (to === 'upstream') {
    const indexes = citations.map((citation) => opaque(citation, 'encryptedIndex'));
    if (citations.length === 0 || indexes.some((index) => index === undefined)) return [{ type: 'text', text: part.text }];
    return [{ type: 'text', text: part.text, citations: citations.map((citation, i) => citationBlock(citation, part.text, indexes[i]!)) }];
  }
  const whole = citations.filter((citation) => citation.startIndex === undefined || citation.endIndex === undefined);
  const spans = citations.filter((citation) => !whole.includes(citation)).sort((a, b) => a.startIndex! - b.startIndex!);
  const blocks: MessagesBlock[] = [];
  let at = 0;
  for (const citation of spans) {
    const start = Math.max(at, Math.min(citation.startIndex!, part.text.length));
    const end = Math.min(Math.max(citation.endIndex!, start), part.text.length);
    if (start > at) blocks.push({ type: 'text', text: part.text.slice(at, start) });
    const text = part.text.slice(start, end);
    if (text !== '') blocks.push({ type: 'text', text, citations: [citationBlock(citation, text, opaque(citation, 'encryptedIndex') ?? '')] });
    at = Math.max(at, end);
  }
  if (at < part.text.length || blocks.length === 0) blocks.push({ type: 'text', text: part.text.slice(at) });
  if (whole.length > 0) {
    const last = blocks.at(-1)!;
    const own = Array.isArray(last.citations) ? (last.citations as Raw[]) : [];
    last.citations = [...own, ...whole.map((citation) => citationBlock(citation, String(last.text), opaque(citation, 'encryptedIndex') ?? ''))];
  }
  return blocks;
}

/** A stream's `citations_delta` citation for a client (its span is not known: the open block). */
export function clientCitation(citation: UrlCitation): Raw {
  return citationBlock(citation, '', opaque(citation, 'encryptedIndex') ?? '');
}
