import { GatewayError, isGatewayError } from '../errors/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { RoutingConfig } from '../config/index.ts';
import { orderCandidates, type OrderContext } from './order-candidates.ts';
import type { RoutePlan } from './types.ts';

/** Which catalog entries can serve this kind of request (e.g. chat models only). */
export type CandidateFilter = (model: CatalogModel) => boolean;

function expand(registry: ProviderRegistry, config: RoutingConfig, id: string, accept: CandidateFilter, context: OrderContext): CatalogModel[] {
  let resolved;
  try {
    resolved = registry.resolve(id);
  } catch {
    return []; // a chain entry the registry does not know is skipped (docs/routing.md)
  }
  const usable = resolved.candidates.filter(accept);
  if (resolved.pinned) return usable;
  return orderCandidates(usable, config.models[id]?.strategy ?? config.strategy, context);
}

/**
 * The fallback chain's models not already among the primary ones (no set made when there is no
 * chain, as for most models): the config's chain for the id, then the request's own list, whose
 * models not already planned are `chosen` (the client's pick, which earns no fallback discount).
 */
function chainOf(
  registry: ProviderRegistry,
  config: RoutingConfig,
  fallbacks: readonly string[] | undefined,
  requestFallbacks: readonly string[] | undefined,
  primary: CatalogModel[],
  accept: CandidateFilter,
  context: OrderContext,
): { chain: CatalogModel[]; chosen?: Set<string> } {
  const chain: CatalogModel[] = [];
  const none = !fallbacks || fallbacks.length === 0;
  if (none && (!requestFallbacks || requestFallbacks.length === 0)) return { chain };
  const seen = new Set(primary.map((m) => m.id));
  const add = (entries: readonly string[], chosen?: Set<string>) => {
    for (const entry of entries) {
      for (const model of expand(registry, config, entry, accept, context)) {
        if (seen.has(model.id)) continue;
        seen.add(model.id);
        chain.push(model);
        chosen?.add(model.id);
      }
    }
  };
  if (!none) add(fallbacks);
  if (!requestFallbacks || requestFallbacks.length === 0) return { chain };
  const chosen = new Set<string>();
  add(requestFallbacks, chosen);
  return { chain, chosen };
}

/**
 * Plans a request: a `provider/model` pins that model; a bare id lists every provider
 * serving it in strategy order; the config's fallback chain for the requested id follows.
 * Throws model_not_found (unknown id) or bad_request (known, but no candidate accepted).
 */
export function planRoute(
  registry: ProviderRegistry,
  config: RoutingConfig,
  requested: string,
  accept: CandidateFilter,
  context: OrderContext,
  requestFallbacks?: readonly string[],
): RoutePlan {
  const resolved = registry.resolve(requested);
  const modelConfig = config.models[requested];
  const strategy = resolved.pinned ? undefined : (modelConfig?.strategy ?? config.strategy);
  const usable = resolved.candidates.filter(accept);
  const primary = strategy ? orderCandidates(usable, strategy, context) : usable;
  // The request's own fallbacks (OpenRouter's `models`) come after the config's chain for the id.
  const { chain, chosen } = chainOf(registry, config, modelConfig?.fallbacks, requestFallbacks, primary, accept, context);
  if (primary.length === 0 && chain.length === 0) {
    throw new GatewayError('bad_request', `The model '${requested}' cannot serve this request.`, { details: { model: requested } });
  }
  const plan: RoutePlan = { mode: resolved.pinned ? 'pinned' : 'auto', requested, strategy, primary, chain };
  if (chosen && chosen.size > 0) plan.chosen = chosen;
  return plan;
}

/** A chat model (the default type): what chat-like requests are served by. */
export function isChatType(model: CatalogModel): boolean {
  return (model.spec.type ?? 'chat') === 'chat';
}

/** A chat model whose provider can run a chat call (the inference routes and batch lines). */
export function servesChat(model: CatalogModel): boolean {
  return isChatType(model) && Boolean(model.provider.instance.chat);
}

/**
 * Plans a chat-like request (Chat, Responses, Messages, Gemini, their token counts, batch lines)
 * over the candidates `accept` takes, chat models only. A model of another type (an image, speech
 * or embedding model, with no chat fallback configured) is told as such, as a media route tells a
 * chat model it is not an image model, rather than as a model that 'cannot serve this request';
 * the same 400 code and details.
 */
export function planChatRoute(registry: ProviderRegistry, config: RoutingConfig, requested: string, accept: CandidateFilter, context: OrderContext, requestFallbacks?: readonly string[]): RoutePlan {
  try {
    return planRoute(registry, config, requested, accept, context, requestFallbacks);
  } catch (error) {
    if (!isGatewayError(error) || error.code !== 'bad_request') throw error;
    const types = [...new Set(registry.resolve(requested).candidates.map((candidate) => candidate.spec.type ?? 'chat'))];
    if (types.includes('chat')) throw error;
    throw new GatewayError('bad_request', `The model '${requested}' is not a chat model (it is ${types.map((type) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`).join(' or ')} model).`, { details: { model: requested } });
  }
}

/** One planned call: a candidate and how many times it was already tried in this request. */
export interface ScheduledAttempt {
  model: CatalogModel;
  retry: number;
}

/**
 * The order of calls for a plan. Pinned: the pinned model up to `attempts` times, then the
 * chain. Auto: every candidate once (a fallback is cheaper than a wait), then again, up to
 * `attempts` rounds. The caller skips candidates it gave up on.
 */
export function* scheduleAttempts(plan: RoutePlan, attempts: number): Generator<ScheduledAttempt> {
  let rotation = [...plan.primary, ...plan.chain];
  if (plan.mode === 'pinned') {
    for (const model of plan.primary) for (let retry = 0; retry < attempts; retry += 1) yield { model, retry };
    rotation = plan.chain;
  }
  for (let retry = 0; retry < attempts; retry += 1) for (const model of rotation) yield { model, retry };
}
