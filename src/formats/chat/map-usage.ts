import type { Usage } from '../../ir/index.ts';
import { isRecord, readNumber, readRecord } from '../shared/index.ts';
import type { ChatUsage } from './types.ts';

/** Chat `usage` → IR (prompt_tokens already includes cached tokens, DeepSeek's hits too). Undefined when absent. */
export function decodeChatUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const out: Usage = {
    inputTokens: readNumber(usage, 'prompt_tokens') ?? 0,
    outputTokens: readNumber(usage, 'completion_tokens') ?? 0,
  };
  const prompt = readRecord(usage, 'prompt_tokens_details');
  const completion = readRecord(usage, 'completion_tokens_details');
  // DeepSeek names its cache hits `prompt_cache_hit_tokens` (beside `prompt_cache_miss_tokens`), not OpenAI's `cached_tokens`.
  const cached = (prompt && readNumber(prompt, 'cached_tokens')) || readNumber(usage, 'prompt_cache_hit_tokens');
  const written = prompt && readNumber(prompt, 'cache_write_tokens');
  const reasoning = completion && readNumber(completion, 'reasoning_tokens');
  if (cached) out.cacheReadTokens = cached;
  if (written) out.cacheWriteTokens = written;
  if (reasoning) out.reasoningTokens = reasoning;
  return out;
}

/** IR → Chat `usage`. */
export function encodeChatUsage(usage: Usage): ChatUsage {
  const out: ChatUsage = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
  if (usage.cacheWriteTokens) out.prompt_tokens_details.cache_write_tokens = usage.cacheWriteTokens;
  return out;
}
