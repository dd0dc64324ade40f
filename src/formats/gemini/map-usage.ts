import type { Usage } from '../../ir/index.ts';
import { isRecord } from '../shared/index.ts';

/**
 * Gemini `usageMetadata` → IR usage. Input: `promptTokenCount` (cached content included) plus
 * `toolUsePromptTokenCount` (search results and the like, billed as input); output:
 * `candidatesTokenCount` (thoughts excluded) plus `thoughtsTokenCount`.
 */
export function decodeGeminiUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const count = (key: string): number => (typeof value[key] === 'number' ? (value[key] as number) : 0);
  if (value.promptTokenCount === undefined && value.candidatesTokenCount === undefined && value.totalTokenCount === undefined) return undefined;
  const thoughts = count('thoughtsTokenCount');
  const usage: Usage = { inputTokens: count('promptTokenCount') + count('toolUsePromptTokenCount'), outputTokens: count('candidatesTokenCount') + thoughts };
  const cached = count('cachedContentTokenCount');
  if (cached > 0) usage.cacheReadTokens = cached;
  if (thoughts > 0) usage.reasoningTokens = thoughts;
  return usage;
}

/** IR usage → Gemini `usageMetadata`. */
export function encodeGeminiUsage(usage: Usage): Record<string, number> {
  const thoughts = usage.reasoningTokens ?? 0;
  const out: Record<string, number> = { promptTokenCount: usage.inputTokens, candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts) };
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  if (usage.cacheReadTokens) out.cachedContentTokenCount = usage.cacheReadTokens;
  out.totalTokenCount = usage.inputTokens + usage.outputTokens;
  return out;
}

/**
 * Model versions Google bills per grounded prompt (Gemini 1.x and 2.x); every other version
 * (Gemini 3 and later, an alias) is billed per search query. docs/billing.md says the source.
 */
const PER_PROMPT_VERSION = /(?:^|\/)gemini-[12][.-]/;

/**
 * The Google Search grounding of one answer, read from its candidates' `groundingMetadata`.
 * A stream may repeat its metadata on several records or split it over them: each query counts
 * the most times one metadata object listed it.
 */
export class GroundingTally {
  private readonly queries = new Map<string, number>();
  private grounded = false;

  /** Adds one `groundingMetadata`. */
  add(metadata: unknown): void {
    if (!isRecord(metadata)) return;
    const listed = new Map<string, number>();
    if (Array.isArray(metadata.webSearchQueries)) for (const query of metadata.webSearchQueries) if (typeof query === 'string') listed.set(query, (listed.get(query) ?? 0) + 1);
    for (const [query, times] of listed) if (times > (this.queries.get(query) ?? 0)) this.queries.set(query, times);
    if (listed.size > 0 || (Array.isArray(metadata.groundingChunks) && metadata.groundingChunks.some((chunk) => isRecord(chunk) && isRecord(chunk.web)))) this.grounded = true;
  }

  /** The searches Google bills for the answer of `modelVersion`: 1 per grounded answer on 1.x and 2.x, else its queries (at least 1). */
  searches(modelVersion: string | undefined): number {
    if (!this.grounded) return 0;
    if (modelVersion !== undefined && PER_PROMPT_VERSION.test(modelVersion)) return 1;
    let queries = 0;
    for (const times of this.queries.values()) queries += times;
    return Math.max(1, queries);
  }
}

/** Adds the `groundingMetadata` of a response's (or stream record's) candidates to `tally`, made on the first one found; untouched without. */
export function tallyGrounding(body: Record<string, unknown>, tally: GroundingTally | undefined): GroundingTally | undefined {
  if (!Array.isArray(body.candidates)) return tally;
  for (const candidate of body.candidates) {
    if (!isRecord(candidate) || candidate.groundingMetadata === undefined) continue;
    tally ??= new GroundingTally();
    tally.add(candidate.groundingMetadata);
  }
  return tally;
}

/** Sets `usage.webSearchRequests` to the searches Google bills for the grounding tallied, when there were any. */
export function countGroundedSearches(usage: Usage | undefined, tally: GroundingTally | undefined, modelVersion: string | undefined): void {
  const searches = tally?.searches(modelVersion) ?? 0;
  if (usage && searches > 0) usage.webSearchRequests = searches;
}
