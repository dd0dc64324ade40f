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
