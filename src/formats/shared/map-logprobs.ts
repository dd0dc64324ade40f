import type { TokenLogprob } from '../../ir/index.ts';
import { isRecord } from './json.ts';

/** The most entries read from one list: OpenAI gives one per output token, and at most 20 alternatives each. */
const MAX_ENTRIES = 1_000_000;

function readEntry(value: unknown): { token: string; logprob: number; bytes?: number[] | null } | undefined {
  if (!isRecord(value) || typeof value.token !== 'string' || typeof value.logprob !== 'number') return undefined;
  const entry: { token: string; logprob: number; bytes?: number[] | null } = { token: value.token, logprob: value.logprob };
  if (value.bytes === null || (Array.isArray(value.bytes) && value.bytes.every((b) => typeof b === 'number'))) entry.bytes = value.bytes as number[] | null;
  return entry;
}

/**
 * OpenAI's token log probabilities (Chat `logprobs.content`, Responses `output_text.logprobs`:
 * `{token, logprob, bytes, top_logprobs}`) → IR; undefined when there are none.
 */
export function decodeLogprobs(value: unknown): TokenLogprob[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: TokenLogprob[] = [];
  for (const raw of value.slice(0, MAX_ENTRIES)) {
    const entry: TokenLogprob | undefined = readEntry(raw);
    if (!entry) continue;
    const top = isRecord(raw) && Array.isArray(raw.top_logprobs) ? raw.top_logprobs.slice(0, 20).map(readEntry).filter((e) => e !== undefined) : undefined;
    if (top) entry.topLogprobs = top;
    out.push(entry);
  }
  return out.length > 0 ? out : undefined;
}

/** IR token log probabilities → OpenAI's shape (`top_logprobs` always present, as OpenAI sends it). */
export function encodeLogprobs(list: readonly TokenLogprob[]): Array<Record<string, unknown>> {
  return list.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes ?? null,
    top_logprobs: (entry.topLogprobs ?? []).map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes ?? null })),
  }));
}

/** The log probabilities of a run of text parts, in order; undefined when none has any. */
export function logprobsOfParts(parts: ReadonlyArray<{ type: string; logprobs?: TokenLogprob[] }>): TokenLogprob[] | undefined {
  let out: TokenLogprob[] | undefined;
  for (const part of parts) if (part.type === 'text' && part.logprobs) (out ??= []).push(...part.logprobs);
  return out;
}
