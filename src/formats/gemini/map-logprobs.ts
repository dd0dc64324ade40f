import type { TokenLogprob } from '../../ir/index.ts';

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
