import type { UrlCitation, WebSearchPart, WebSearchSource } from '../../ir/index.ts';
import { generateId, isRecord } from '../shared/index.ts';

type Json = Record<string, unknown>;

/**
 * Google Search grounding ↔ the IR's hosted web search (src/ir/types.ts): `webSearchQueries[i]`
 * is one search part (the sources, `groundingChunks[].web`, on the first); each
 * `groundingSupports[]` span with its `groundingChunkIndices` is a citation. Google measures a
 * span in UTF-8 bytes of the answer's text; the IR in UTF-16 units.
 */

/** A citation placed in the answer's whole text (UTF-16 units), before it is given to a text part. */
export interface PlacedCitation {
  start: number;
  end: number;
  citation: UrlCitation;
}

/** What a candidate's `groundingMetadata` says: the searches, and the citations over `text` (the answer's text, thoughts left out). */
export function decodeGrounding(metadata: unknown, text: string): { searches: WebSearchPart[]; citations: PlacedCitation[] } {
  if (!isRecord(metadata)) return { searches: [], citations: [] };
  const chunks = Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : [];
  const sources = chunks.map((chunk): WebSearchSource | undefined => {
    const web = isRecord(chunk) && isRecord(chunk.web) ? chunk.web : undefined;
    if (typeof web?.uri !== 'string') return undefined;
    return typeof web.title === 'string' ? { url: web.uri, title: web.title } : { url: web.uri };
  });
  const found = sources.filter((source): source is WebSearchSource => source !== undefined);
  const queries = Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries.filter((query): query is string => typeof query === 'string') : [];
  const searches: WebSearchPart[] = (queries.length > 0 ? queries : found.length > 0 ? [undefined] : []).map((query, i) => {
    const part: WebSearchPart = { type: 'web_search', id: generateId('gws_') };
    if (query !== undefined) part.query = query;
    if (i === 0 && found.length > 0) part.sources = found;
    return part;
  });
  const bytes = Buffer.from(text);
  const units = (offset: unknown): number | undefined => (typeof offset === 'number' && offset >= 0 ? bytes.subarray(0, offset).toString().length : undefined);
  const citations: PlacedCitation[] = [];
  for (const support of Array.isArray(metadata.groundingSupports) ? metadata.groundingSupports : []) {
    if (!isRecord(support) || !isRecord(support.segment) || !Array.isArray(support.groundingChunkIndices)) continue;
    const start = units(support.segment.startIndex) ?? 0;
    const end = units(support.segment.endIndex);
    if (end === undefined || end <= start) continue;
    for (const index of support.groundingChunkIndices) {
      const source = typeof index === 'number' ? sources[index] : undefined;
      if (source) citations.push({ start, end, citation: { type: 'url', url: source.url, ...(source.title === undefined ? {} : { title: source.title }) } });
    }
  }
  return { searches, citations };
}

/** The citations of a text that starts at `offset` of the answer's text and is `length` long, relative to it. */
export function citationsWithin(citations: readonly PlacedCitation[], offset: number, length: number): UrlCitation[] {
  return citations
    .filter((placed) => placed.start >= offset && placed.start < offset + length)
    .map((placed) => ({ ...placed.citation, startIndex: placed.start - offset, endIndex: Math.min(placed.end, offset + length) - offset }));
}

/** Collects the searches and citations of an answer for a Gemini client, in Google's shape. */
export class GroundingWriter {
  private readonly queries: string[] = [];
  private readonly chunks: Json[] = [];
  private readonly supports: Json[] = [];
  /** UTF-8 bytes of the answer's text so far. */
  private bytes = 0;

  search(part: WebSearchPart): void {
    if (part.query) this.queries.push(part.query);
    for (const source of part.sources ?? []) this.chunkOf(source.url, source.title);
  }

  /** A text of the answer (`citations` relative to it): its cited spans, then its length counted. */
  text(text: string, citations: readonly UrlCitation[] = []): void {
    for (const citation of citations) this.cite(text, citation);
    this.bytes += Buffer.byteLength(text);
  }

  /** Text of the answer that cites nothing (a refusal). */
  advance(text: string): void {
    this.bytes += Buffer.byteLength(text);
  }

  /** `groundingMetadata`, or undefined when the answer has no search and no citation. */
  metadata(): Json | undefined {
    if (this.queries.length === 0 && this.chunks.length === 0) return undefined;
    const out: Json = { groundingChunks: this.chunks, groundingSupports: this.supports };
    if (this.queries.length > 0) out.webSearchQueries = this.queries;
    return out;
  }

  /** One span of `text` (a citation without indices: all of it); the same span again adds its source to the last support. */
  private cite(text: string, citation: UrlCitation): void {
    const start = citation.startIndex ?? 0;
    const segment = text.slice(start, citation.endIndex ?? text.length);
    const startIndex = this.bytes + Buffer.byteLength(text.slice(0, start));
    const endIndex = startIndex + Buffer.byteLength(segment);
    const chunk = this.chunkOf(citation.url, citation.title);
    const last = this.supports.at(-1) as { segment: { startIndex: number; endIndex: number }; groundingChunkIndices: number[] } | undefined;
    if (last && last.segment.startIndex === startIndex && last.segment.endIndex === endIndex) {
      if (!last.groundingChunkIndices.includes(chunk)) last.groundingChunkIndices.push(chunk);
      return;
    }
    this.supports.push({ segment: { startIndex, endIndex, text: segment }, groundingChunkIndices: [chunk] });
  }

  private chunkOf(url: string, title: string | undefined): number {
    const known = this.chunks.findIndex((chunk) => (chunk.web as Json).uri === url);
    if (known !== -1) return known;
    this.chunks.push({ web: title === undefined ? { uri: url } : { uri: url, title } });
    return this.chunks.length - 1;
  }
}
