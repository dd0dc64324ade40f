import type { TokenLogprob } from '../../ir/index.ts';
import { isRecord } from '../shared/index.ts';

type Json = Record<string, unknown>;

/**
 * IR token log probabilities → a candidate's `logprobsResult` as Google writes it: the chosen
 * token of each step (`chosenCandidates`) and that step's most likely tokens (`topCandidates`).
 */
export function encodeGeminiLogprobs(list: readonly TokenLogprob[]): Json {
  return {
    topCandidates: list.map((entry) => ({ candidates: (entry.topLogprobs ?? []).map((top) => ({ token: top.token, logProbability: top.logprob })) })),
    chosenCandidates: list.map((entry) => ({ token: entry.token, logProbability: entry.logprob })),
  };
}

/** The candidate's `avgLogprobs`: the mean log probability of its tokens. */
export function averageLogprob(list: readonly TokenLogprob[]): number {
  return list.length === 0 ? 0 : list.reduce((sum, entry) => sum + entry.logprob, 0) / list.length;
}

/** The asks of token log probabilities Google refuses for a model ("Logprobs is not enabled for models/gemini-2.5-pro", "… is not supported for the current model"). */
export const LOGPROBS_PARAM = 'generationConfig.responseLogprobs';

/** Google's refusal of `responseLogprobs` by a model that has none; the refused param it names. */
export function refusedLogprobsParam(message: string): string | undefined {
  return /\bLogprobs is not (?:enabled|supported)\b/i.test(message) ? LOGPROBS_PARAM : undefined;
}

/**
 * A candidate's `logprobsResult` → IR token log probabilities: each decoding step's chosen token
 * (`chosenCandidates`) with that step's most likely tokens (`topCandidates`, at most 20);
 * undefined when there are none. Google gives no bytes.
 */
export function decodeGeminiLogprobs(result: unknown): TokenLogprob[] | undefined {
  if (!isRecord(result) || !Array.isArray(result.chosenCandidates)) return undefined;
  const tops = Array.isArray(result.topCandidates) ? result.topCandidates : [];
  const out: TokenLogprob[] = [];
  result.chosenCandidates.forEach((chosen, i) => {
    const entry = readCandidate(chosen);
    if (!entry) return;
    const step = tops[i];
    const candidates = isRecord(step) && Array.isArray(step.candidates) ? step.candidates : undefined;
    if (candidates) entry.topLogprobs = candidates.slice(0, 20).flatMap((candidate) => readCandidate(candidate) ?? []);
    out.push(entry);
  });
  return out.length > 0 ? out : undefined;
}

function readCandidate(value: unknown): TokenLogprob | undefined {
  if (!isRecord(value) || typeof value.token !== 'string') return undefined;
  // proto3 JSON leaves a zero out: a certain token's logProbability is absent.
  const logprob = value.logProbability === undefined ? 0 : value.logProbability;
  return typeof logprob === 'number' ? { token: value.token, logprob } : undefined;
}

/**
 * A converted body without the token log probabilities its model refused (fit.withoutRefused):
 * `responseLogprobs` and `logprobs` left out, said as `logprobs=removed`. The refusal is the
 * model's (gemini-2.0-flash has them, gemini-2.5-pro not), so it is remembered for that model only.
 */
export function withoutRefusedLogprobs(body: Record<string, unknown>, param: string): { body: Record<string, unknown>; adapted: string; byModel: true } | undefined {
  const config = body.generationConfig;
  if (param !== LOGPROBS_PARAM || !isRecord(config) || config.responseLogprobs === undefined) return undefined;
  const { responseLogprobs: _refused, logprobs: _top, ...rest } = config;
  return { body: { ...body, generationConfig: rest }, adapted: 'logprobs=removed', byModel: true };
}
