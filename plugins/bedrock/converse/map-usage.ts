// Converse `usage` ↔ IR usage. Converse's `inputTokens` leaves out cache reads and writes
// (`totalTokens` counts them); the IR's `inputTokens` holds all input, cached included.
import type { Usage } from 'gateway/plugin-kit';
import { isRecord, numberOf } from './json.ts';

export function decodeConverseUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const input = numberOf(value.inputTokens) ?? 0;
  const output = numberOf(value.outputTokens) ?? 0;
  const read = numberOf(value.cacheReadInputTokens) ?? 0;
  const write = numberOf(value.cacheWriteInputTokens) ?? 0;
  const usage: Usage = { inputTokens: input + read + write, outputTokens: output };
  if (read) usage.cacheReadTokens = read;
  if (write) usage.cacheWriteTokens = write;
  return usage;
}

export function encodeConverseUsage(usage: Partial<Usage>): Record<string, number> {
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const input = Math.max(0, (usage.inputTokens ?? 0) - read - write);
  const output = usage.outputTokens ?? 0;
  const out: Record<string, number> = { inputTokens: input, outputTokens: output, totalTokens: input + output + read + write };
  if (read) out.cacheReadInputTokens = read;
  if (write) out.cacheWriteInputTokens = write;
  return out;
}
