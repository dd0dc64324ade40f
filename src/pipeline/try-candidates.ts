import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, toGatewayError } from '../errors/index.ts';
import type { CatalogModel } from '../providers/types.ts';
import { retryDelayMs, scheduleAttempts, type FallbackInfo, type RoutePlan, type Router, type RoutingInfo } from '../routing/index.ts';

/** The attempt that served, and how the request got there. */
export interface Served<T> {
  value: T;
  model: CatalogModel;
  routing: RoutingInfo;
  fallback?: FallbackInfo;
}

/** A failure after which the loop gave up, with what the routing tried. */
export class RoutingFailure extends Error {
  constructor(
    readonly error: GatewayError,
    readonly attempts: number,
  ) {
    super(error.message);
  }
}

function clientGone(): GatewayError {
  return new GatewayError('bad_request', 'The client closed the connection.');
}

/**
 * Calls the plan's candidates until one answers. Retryable failures (spec §7) move on: to
 * the next candidate at once, or back to the same one after a full-jitter backoff that
 * honours Retry-After. Non-retryable failures end the request. Circuits that are open are
 * skipped; when every candidate is open, the least recently failed one is tried anyway.
 * Attempts per candidate and the total time are bounded by `routing.retry`.
 */
export async function tryCandidates<T>(
  router: Router,
  plan: RoutePlan,
  signal: AbortSignal,
  attempt: (model: CatalogModel) => Promise<T>,
  startedAt = router.now(),
): Promise<Served<T>> {
  const policy = router.config.retry;
  const failures = new Map<string, GatewayError>();
  const givenUp = new Set<string>();
  let first: { model: CatalogModel; error?: GatewayError } | undefined;
  let lastError: GatewayError | undefined;
  let attempts = 0;

  const run = async (model: CatalogModel): Promise<Served<T> | undefined> => {
    attempts += 1;
    first ??= { model };
    try {
      const value = await attempt(model);
      router.breaker.recordSuccess(model.id);
      return { value, model, ...describe(plan, model, attempts, first, router) };
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (signal.aborted) {
        router.breaker.release(model.id);
        throw clientGone();
      }
      if (!error.retryable) {
        router.breaker.release(model.id); // the upstream answered: says nothing against its health
        throw new RoutingFailure(error, attempts);
      }
      router.breaker.recordFailure(model.id);
      failures.set(model.id, error);
      if (first.model.id === model.id) first.error ??= error;
      lastError = error;
      return undefined;
    }
  };

  for (const { model, retry } of scheduleAttempts(plan, policy.attempts)) {
    if (signal.aborted) throw clientGone();
    if (givenUp.has(model.id)) continue;
    let wait = 0;
    if (retry > 0) {
      const previous = failures.get(model.id);
      if (!previous) continue; // skipped (open circuit) in an earlier round: not retried
      const delay = retryDelayMs(previous, retry, policy, router.random);
      if (delay === undefined) {
        givenUp.add(model.id);
        continue;
      }
      wait = delay;
    }
    if (attempts > 0 && router.now() - startedAt + wait > policy.budgetMs) break;
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) throw clientGone();
    if (!router.breaker.allow(model.id)) continue;
    const served = await run(model);
    if (served) return served;
  }

  if (attempts === 0) {
    // Every circuit is open: failing outright would turn a partial outage into a full one.
    const all = [...plan.primary, ...plan.chain];
    const id = router.breaker.leastRecentlyFailed(all.map((m) => m.id));
    const model = all.find((m) => m.id === id) ?? all[0];
    router.breaker.force(model.id);
    const served = await run(model);
    if (served) return served;
  }
  throw new RoutingFailure(lastError ?? new GatewayError('provider_unavailable', 'No provider could serve the request.'), attempts);
}

function describe(
  plan: RoutePlan,
  model: CatalogModel,
  attempts: number,
  first: { model: CatalogModel; error?: GatewayError },
  router: Router,
): { routing: RoutingInfo; fallback?: FallbackInfo } {
  const routing: RoutingInfo = { mode: plan.mode, requested: plan.requested, resolved: model.id, attempts };
  if (plan.strategy) routing.strategy = plan.strategy;
  if (first.model.id === model.id || !first.error) return { routing };
  const fallback: FallbackInfo = {
    provider: model.provider.id,
    model: model.id,
    from: first.model.id,
    reason: first.error.code,
    discount: router.discountFor(plan.requested),
  };
  return { routing, fallback };
}
