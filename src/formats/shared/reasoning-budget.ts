import type { ReasoningEffort } from '../../ir/index.ts';
import type { RequestFacts } from '../types.ts';

/**
 * Thinking budgets for an effort. low/medium/high follow LiteLLM (1024/2048/4096);
 * minimal sits at Anthropic's minimum, xhigh/max double on upwards (our choice).
 */
export const EFFORT_BUDGET_TOKENS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 2048,
  high: 4096,
  xhigh: 8192,
  max: 16384,
};

/** Anthropic's smallest accepted `budget_tokens`. */
export const MIN_BUDGET_TOKENS = 1024;

/** Effort → thinking budget tokens; undefined for `none`. */
export function effortToBudgetTokens(effort: ReasoningEffort): number | undefined {
  return effort === 'none' ? undefined : EFFORT_BUDGET_TOKENS[effort];
}

/** Thinking budget → the nearest of low/medium/high (ties go up). */
export function budgetTokensToEffort(budget: number): 'low' | 'medium' | 'high' {
  const candidates = [
    ['low', 1024],
    ['medium', 2048],
    ['high', 4096],
  ] as const;
  let best: 'low' | 'medium' | 'high' = 'low';
  let bestDistance = Infinity;
  for (const [effort, tokens] of candidates) {
    const distance = Math.abs(budget - tokens);
    if (distance <= bestDistance) {
      best = effort;
      bestDistance = distance;
    }
  }
  return best;
}

const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === 'string' && EFFORTS.has(value);
}

/** The thinking budget an effort written by a client maps to (`medium`'s for one that is not an effort); undefined for `none`. */
export function budgetOfEffort(effort: unknown): number | undefined {
  if (effort === 'none') return undefined;
  return typeof effort === 'string' && Object.hasOwn(EFFORT_BUDGET_TOKENS, effort) ? EFFORT_BUDGET_TOKENS[effort as keyof typeof EFFORT_BUDGET_TOKENS] : EFFORT_BUDGET_TOKENS.medium;
}

/**
 * The output a request may be answered with, for the credit hold (`facts.maxTokens`): its cap, or
 * where it asks for thinking with a budget (`budgets`: each the request may mean, the largest
 * counts) at least that large, the budget on top (`facts.thinkingOnTop`): Anthropic counts thinking
 * in `max_tokens` and wants the budget below it, so a converted request goes to Claude with
 * `max_tokens` = budget + cap (src/formats/messages/encode-request.ts). Held for its cap alone, a
 * request of 16 tokens with a budget of 20,000 was answered 20,016 on a balance that covered 16.
 * Admission leaves the budget out where every upstream that may serve it counts reasoning inside
 * its cap (FormatDefinition.capBoundsReasoning).
 */
export function setOutputCap(facts: Pick<RequestFacts, 'maxTokens' | 'thinkingOnTop'>, cap: number, budgets: ReadonlyArray<number | undefined>): void {
  facts.maxTokens = cap;
  let budget: number | undefined;
  for (const each of budgets) if (each !== undefined && Number.isFinite(each) && (budget === undefined || each > budget)) budget = each;
  if (budget === undefined) return;
  const thinking = Math.max(budget, MIN_BUDGET_TOKENS);
  if (cap > thinking) return;
  facts.maxTokens = cap + thinking;
  facts.thinkingOnTop = thinking;
}
