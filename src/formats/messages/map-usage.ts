import type { Usage } from '../../ir/index.ts';
import { isRecord, readNumber, readRecord } from '../shared/index.ts';
import type { MessagesUsage } from './types.ts';

/**
 * Anthropic `usage` → IR. Anthropic's `input_tokens` excludes cached tokens while the IR's
 * includes them (wire-formats §4.7): input = input + cache writes + cache reads. The 1-hour
 * part of the writes comes from `cache_creation.ephemeral_1h_input_tokens`.
 */
export function decodeMessagesUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const split = readRecord(usage, 'cache_creation');
  const write1h = (split && readNumber(split, 'ephemeral_1h_input_tokens')) ?? 0;
  const cacheWrite = readNumber(usage, 'cache_creation_input_tokens') ?? (split ? (readNumber(split, 'ephemeral_5m_input_tokens') ?? 0) + write1h : 0);
  const cacheRead = readNumber(usage, 'cache_read_input_tokens') ?? 0;
  const out: Usage = {
    inputTokens: (readNumber(usage, 'input_tokens') ?? 0) + cacheWrite + cacheRead,
    outputTokens: readNumber(usage, 'output_tokens') ?? 0,
  };
  if (cacheRead) out.cacheReadTokens = cacheRead;
  if (cacheWrite) out.cacheWriteTokens = cacheWrite;
  if (write1h > 0 && cacheWrite > 0) out.cacheWrite1hTokens = Math.min(write1h, cacheWrite);
  const details = readRecord(usage, 'output_tokens_details');
  const thinking = details && readNumber(details, 'thinking_tokens');
  if (thinking) out.reasoningTokens = thinking;
  const searches = readNumber(readRecord(usage, 'server_tool_use') ?? {}, 'web_search_requests');
  if (searches) out.webSearchRequests = searches;
  return out;
}

/**
 * IR → Anthropic `usage`: uncached input = all input − cache reads − cache writes; reasoning
 * tokens (when known) as `output_tokens_details.thinking_tokens`.
 */
export function encodeMessagesUsage(usage: Partial<Usage>): MessagesUsage {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const out: MessagesUsage = {
    input_tokens: Math.max((usage.inputTokens ?? 0) - cacheRead - cacheWrite, 0),
    output_tokens: usage.outputTokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
  // The TTL split only when the IR knows a 1-hour part (other formats do not report one).
  if (usage.cacheWrite1hTokens) {
    const write1h = Math.min(usage.cacheWrite1hTokens, cacheWrite);
    out.cache_creation = { ephemeral_5m_input_tokens: cacheWrite - write1h, ephemeral_1h_input_tokens: write1h };
  }
  if (usage.reasoningTokens) out.output_tokens_details = { thinking_tokens: usage.reasoningTokens };
  if (usage.webSearchRequests) out.server_tool_use = { web_search_requests: usage.webSearchRequests };
  return out;
}

/**
 * Stream usage: `message_start` carries input counts, each `message_delta` carries cumulative
 * counts (sometimes input too). Later non-null fields replace earlier ones.
 */
export function mergeMessagesUsage(previous: Record<string, unknown>, next: unknown): Record<string, unknown> {
  if (!isRecord(next)) return previous;
  const merged = { ...previous };
  for (const [key, value] of Object.entries(next)) if (value !== null && value !== undefined) merged[key] = value;
  return merged;
}
