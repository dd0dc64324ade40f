import type { InboundBody, RequestFacts } from '../types.ts';
import { budgetOfEffort, FieldChecker, isRecord, measureInput, mediaByType, requireBodyShape, requireObjectItems, setOutputCap } from '../shared/index.ts';

/** Content part types that carry media (an image, a file, an audio clip). */
const MEDIA = mediaByType(new Set(['image_url', 'file', 'input_audio']));

/**
 * What billing and routing read of a Chat Completions body — all a passthrough reads (the
 * rest is the upstream's to judge): model, stream, the output cap, the input bound, and
 * `prompt_cache_key` (sticky routing).
 */
export function readChatRequest({ body: raw }: InboundBody): RequestFacts {
  const body = requireBodyShape(raw, 'messages');
  requireObjectItems(body.messages as unknown[], 'messages');
  const check = new FieldChecker();
  const stream = check.boolean(body.stream, 'stream') ?? false;
  const maxTokens =
    check.number(body.max_completion_tokens, 'max_completion_tokens', { min: 0, integer: true }) ??
    check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true });
  const promptCacheKey = check.string(body.prompt_cache_key, 'prompt_cache_key');
  check.throwIfAny();
  const input = measureInput([body.messages, body.tools, body.functions, body.response_format], MEDIA);
  const facts: RequestFacts = { model: body.model, stream, inputBound: input.bound, inputEstimate: input.estimate };
  // With thinking asked over a smaller cap, a converted request may be answered the budget on top (setOutputCap).
  if (maxTokens !== undefined) setOutputCap(facts, maxTokens, thinkingBudgets(body));
  if (promptCacheKey !== undefined) facts.promptCacheKey = promptCacheKey;
  // `web_search_options`: a hosted web search, run by the formats whose face says `hostedWebSearch`.
  if (isRecord(body.web_search_options)) facts.vendorTools = { format: 'chat', types: ['web_search'], webSearch: ['web_search'] };
  // Image output (OpenRouter's `modalities: ['image', 'text']`), as the decoder reads it (audio output has no such path).
  if (Array.isArray(body.modalities) && body.modalities.includes('image') && !body.modalities.includes('audio')) facts.imageOutput = true;
  return facts;
}

/** The thinking budgets a Chat body may mean (`thinking`, `reasoning_effort`, OpenRouter's `reasoning`), as the decoder reads them; none when it asks for none. */
function thinkingBudgets(body: Record<string, unknown>): Array<number | undefined> {
  const budgets: Array<number | undefined> = [];
  const { thinking, reasoning } = body;
  if (isRecord(thinking) && thinking.type !== 'disabled') budgets.push(typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : budgetOfEffort(body.reasoning_effort ?? 'medium'));
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) budgets.push(budgetOfEffort(body.reasoning_effort));
  if (isRecord(reasoning) && reasoning.enabled !== false && reasoning.effort !== 'none' && (reasoning.effort != null || reasoning.max_tokens != null || reasoning.enabled != null)) {
    budgets.push(typeof reasoning.max_tokens === 'number' ? reasoning.max_tokens : budgetOfEffort(reasoning.effort ?? 'medium'));
  }
  return budgets;
}
