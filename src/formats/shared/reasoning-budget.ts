import type { ReasoningEffort } from '../../ir/index.ts';

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
