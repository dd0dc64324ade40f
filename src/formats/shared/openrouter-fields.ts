import type { ReasoningConfig } from '../../ir/index.ts';
import type { PassthroughTarget } from '../types.ts';
import { FieldChecker } from './check-fields.ts';
import { isRecord } from './json.ts';
import { openAIEffortFor } from './openai-reasoning-efforts.ts';
import { budgetTokensToEffort, isReasoningEffort } from './reasoning-budget.ts';

/** OpenRouter's request fields that only an OpenRouter upstream takes (routing preferences, its plugins, middle-out, the old `route`), on Chat and on its Responses API alike. */
const ROUTING_FIELDS = ['provider', 'plugins', 'transforms', 'route'] as const;

/** What `takeOutOpenRouterRouting` left: the body without them, what was said of it, and the `usage` ask it took out. */
export interface WithoutOpenRouterRouting {
  body: Record<string, unknown>;
  adapted: string[];
  usage: unknown;
}

/**
 * A body written for OpenRouter without the fields only OpenRouter takes: `provider`, `plugins`,
 * `transforms` and `route` (each said in `X-Gateway-Adapted`) and `usage` (returned: the gateway's
 * answers carry usage anyway, a Chat stream asks for it instead). Undefined when it has none.
 */
export function takeOutOpenRouterRouting(body: Record<string, unknown>): WithoutOpenRouterRouting | undefined {
  if (body.usage === undefined && ROUTING_FIELDS.every((field) => body[field] === undefined)) return undefined;
  const out: Record<string, unknown> = { ...body };
  const adapted: string[] = [];
  for (const field of ROUTING_FIELDS) {
    if (out[field] === undefined) continue;
    delete out[field];
    adapted.push(`${field}=removed`);
  }
  const usage = out.usage;
  delete out.usage;
  return { body: out, adapted, usage };
}

/** OpenRouter's usage accounting asked (`usage: {include: true}`): the answer's usage is to carry its cost. */
export function asksForUsageCost(usage: unknown): boolean {
  return isRecord(usage) && usage.include === true;
}

/**
 * The OpenAI effort OpenRouter's `reasoning` object asks of the model a passthrough goes to: an
 * effort as asked, a `max_tokens` budget as the nearest effort, `enabled: false` the model's
 * least; undefined for a model that does not reason or a bare `enabled: true` (the model's
 * default). A bad one is the 422 the converted route gives, naming `reasoning.…`.
 */
export function openRouterReasoningEffort(value: unknown, target: PassthroughTarget): string | undefined {
  const check = new FieldChecker();
  const config = decodeOpenRouterReasoning(value, check);
  check.throwIfAny();
  if (!config || target.noReasoning) return undefined;
  const asked = config.effort ?? (config.enabled && config.budgetTokens !== undefined ? budgetTokensToEffort(config.budgetTokens) : undefined);
  return openAIEffortFor(target.baseModel, config, asked);
}

/**
 * OpenRouter's unified `reasoning`: `effort` (OpenAI-style; `none` turns it off), `max_tokens`
 * (Anthropic-style budget), `enabled` (on with the model's defaults when neither is given; `false`
 * turns it off). `exclude` (keep the reasoning out of the answer) changes nothing asked of the
 * model: the Chat decoder reads it apart (`excludeReasoning`) and the Chat encoders leave the reasoning out.
 */
export function decodeOpenRouterReasoning(value: unknown, check: FieldChecker): ReasoningConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const reasoning = check.record(value, 'reasoning');
  if (!reasoning) return undefined;
  const enabled = check.boolean(reasoning.enabled, 'reasoning.enabled');
  const budget = check.number(reasoning.max_tokens, 'reasoning.max_tokens', { min: 1, integer: true });
  let effort: ReasoningConfig['effort'];
  if (reasoning.effort !== undefined && reasoning.effort !== null) {
    if (isReasoningEffort(reasoning.effort)) effort = reasoning.effort;
    else check.fail('reasoning.effort', 'must be one of none, minimal, low, medium, high, xhigh, max');
  }
  if (effort === undefined && budget === undefined && enabled === undefined) return undefined;
  const config: ReasoningConfig = { enabled: enabled !== false && effort !== 'none' };
  if (effort !== undefined) config.effort = effort;
  if (budget !== undefined && config.enabled) config.budgetTokens = budget;
  return config;
}

