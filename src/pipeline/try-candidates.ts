import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, toGatewayError } from '../errors/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { retryDelayMs, scheduleAttempts, type FallbackInfo, type RoutePlan, type Router, type RoutingInfo, type ScheduledAttempt } from '../routing/index.ts';
import type { AbortWatch } from '../util/index.ts';
import { hedgeCall } from './hedge-call.ts';

/** The attempt that served, and how the request got there. */
export interface Served<T> {
  value: T;
  model: CatalogModel;
  routing: RoutingInfo;
  fallback?: FallbackInfo;
}

/**
 * The error a client gets when the loop gave up: the last failure, with how the routing went
 * (spec §6.4). Callers get it as it is: no marker class to recognise and convert.
 */
function routingFailureError(error: GatewayError, attempts: number, plan: RoutePlan): GatewayError {
  return new GatewayError(error.code, error.message, {
    details: error.details,
    retryAfter: error.retryAfter,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
    status: error.status,
    headers: { ...error.headers, 'x-routing-mode': plan.mode, 'x-routing-attempts': String(attempts) },
  });
}

function clientGone(): GatewayError {
  return new GatewayError('client_closed', 'The client closed the connection.');
}

export interface TryOptions<T> {
  /** When the request arrived (the retry budget counts from there). */
  startedAt?: number;
  /** Frees an answer that lost a hedge race (e.g. closes its stream). */
  discard?: (value: T) => void;
  /** No hedged second call even if the model has `hedge` (a sticky session's request). */
  noHedge?: boolean;
}

/**
 * The state of one request's candidate loop: attempts made, failures by model, the first
 * candidate tried. A class, and its maps made on the first failure: most requests make one
 * call that answers, and closures and collections per request are garbage under load.
 */
class CandidateLoop<T> {
  attempts = 0;
  first: { model: CatalogModel; error?: GatewayError } | undefined = undefined;
  lastError: GatewayError | undefined = undefined;
  failures: Map<string, GatewayError> | undefined = undefined;

  constructor(
    readonly router: Router,
    readonly plan: RoutePlan,
    readonly client: AbortWatch,
    readonly attempt: (model: CatalogModel, signal?: AbortSignal) => Promise<T>,
  ) {}

  failed(model: CatalogModel, error: GatewayError): void {
    this.router.breaker.recordFailure(model.id, error);
    (this.failures ??= new Map()).set(model.id, error);
    const first = this.first;
    if (first?.model.id === model.id) first.error ??= error;
    this.lastError = error;
  }

  served(model: CatalogModel, value: T): Served<T> {
    this.router.breaker.recordSuccess(model.id);
    const { routing, fallback } = describe(this.plan, model, this.attempts, this.first!, this.router);
    return fallback ? { value, model, routing, fallback } : { value, model, routing };
  }

  /**
   * One call: its value, or undefined after a retryable failure (the loop moves on). Not async:
   * every request makes one, and a callback pair allocates less than a suspended frame.
   */
  run(model: CatalogModel): Promise<Served<T> | undefined> {
    this.attempts += 1;
    this.first ??= { model };
    let calling: Promise<T>;
    try {
      calling = this.attempt(model);
    } catch (thrown) {
      calling = Promise.reject(thrown);
    }
    return calling.then(
      (value) => this.served(model, value),
      (thrown: unknown) => this.callFailed(model, thrown),
    );
  }

  /** A call that threw: the client's abort or a fatal error end the loop; a retryable failure is noted. */
  private callFailed(model: CatalogModel, thrown: unknown): undefined {
    const error = toGatewayError(thrown);
    if (this.client.aborted) {
      this.router.breaker.release(model.id);
      throw clientGone();
    }
    if (!error.retryable) {
      this.router.breaker.release(model.id); // the upstream answered: says nothing against its health
      throw routingFailureError(error, this.attempts, this.plan);
    }
    this.failed(model, error);
    return undefined;
  }
}

/**
 * Calls the plan's candidates until one answers. Retryable failures (spec §7) move on: to
 * the next candidate at once, or back to the same one after a full-jitter backoff that
 * honours Retry-After. Non-retryable failures end the request. Circuits that are open are
 * skipped; when every candidate is open, the least recently failed one is tried anyway.
 * Attempts per candidate and the total time are bounded by `routing.retry`. A model with
 * `hedge` configured races its first two scheduled calls (see hedgeCall). The failure it ends on
 * is thrown with how the routing went (`x-routing-mode`, `x-routing-attempts`).
 */
export function tryCandidates<T>(
  router: Router,
  plan: RoutePlan,
  client: AbortWatch,
  attempt: (model: CatalogModel, signal?: AbortSignal) => Promise<T>,
  options: TryOptions<T> = {},
): Promise<Served<T>> {
  try {
    const startedAt = options.startedAt ?? router.now();
    const loop = new CandidateLoop(router, plan, client, attempt);
    const hedgeMs = options.noHedge ? undefined : router.hedgeDelayFor(plan.requested);
    // The first scheduled call, without the schedule's generators or the loop's async frame: the one most requests make.
    const first = hedgeMs === undefined && router.config.retry.attempts > 0 ? (plan.primary[0] ?? plan.chain[0]) : undefined;
    if (!first) return tryScheduled(loop, options, startedAt, hedgeMs, false);
    if (client.aborted) throw clientGone();
    if (!router.breaker.allow(first.id)) return tryScheduled(loop, options, startedAt, hedgeMs, true);
    return loop.run(first).then((result) => result ?? tryScheduled(loop, options, startedAt, hedgeMs, true));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The rest of tryCandidates: the hedge race, retries and fallbacks, after the first call (if made: `skipFirst`). */
async function tryScheduled<T>(loop: CandidateLoop<T>, options: TryOptions<T>, startedAt: number, hedgeMs: number | undefined, skipFirst: boolean): Promise<Served<T>> {
  const { router, plan, client, attempt } = loop;
  const policy = router.config.retry;
  let givenUp: Set<string> | undefined;

  const schedule = scheduleAttempts(plan, policy.attempts);
  if (skipFirst) schedule.next();
  let pending: ScheduledAttempt[] = [];
  if (hedgeMs !== undefined) {
    pending = [schedule.next(), schedule.next()].flatMap((n) => (n.done ? [] : [n.value]));
    const [a, b] = pending;
    const allowedA = b !== undefined && router.breaker.allow(a.model.id);
    const allowedB = allowedA && (a.model.id === b.model.id || router.breaker.allow(b.model.id));
    if (allowedA && !allowedB) router.breaker.release(a.model.id); // no race: the loop asks again
    if (allowedB) {
      loop.first = { model: a.model };
      const race = await hedgeCall(a.model, b.model, hedgeMs, attempt, options.discard ?? (() => undefined));
      loop.attempts += race.started;
      for (const loser of race.aborted) router.breaker.release(loser.id);
      if (race.started === 1 && b.model.id !== a.model.id) router.breaker.release(b.model.id);
      if (client.aborted) throw clientGone();
      if (race.fatal) throw routingFailureError(race.fatal, loop.attempts, plan);
      for (const failure of race.failed) loop.failed(failure.model, failure.error);
      if (race.winner) return loop.served(race.winner.model, race.winner.value);
      pending = race.started === 1 ? [b] : []; // b never called: it keeps its place
    }
  }

  for (const { model, retry } of chain(pending, schedule)) {
    if (client.aborted) throw clientGone();
    if (givenUp?.has(model.id)) continue;
    let wait = 0;
    if (retry > 0) {
      const previous = loop.failures?.get(model.id);
      if (!previous) continue; // skipped (open circuit) in an earlier round: not retried
      const delay = retryDelayMs(previous, retry, policy, router.random);
      if (delay === undefined) {
        (givenUp ??= new Set()).add(model.id);
        continue;
      }
      wait = delay;
    }
    if (loop.attempts > 0 && router.now() - startedAt + wait > policy.budgetMs) break;
    if (wait > 0) await sleep(wait, undefined, { signal: client.signal }).catch(() => undefined);
    if (client.aborted) throw clientGone();
    if (!router.breaker.allow(model.id)) continue;
    const result = await loop.run(model);
    if (result) return result;
  }

  if (loop.attempts === 0) {
    const all = [...plan.primary, ...plan.chain];
    // A pinned model whose circuits are all open is shed at once: the client asked for that
    // upstream only, and a call to it would only feed a failing upstream more load.
    if (plan.mode === 'pinned') throw routingFailureError(shedError(router, all), 0, plan);
    // Auto: every circuit is open; failing outright would turn a partial outage into a full one.
    const id = router.breaker.leastRecentlyFailed(all.map((m) => m.id));
    const model = all.find((m) => m.id === id) ?? all[0];
    router.breaker.force(model.id);
    const result = await loop.run(model);
    if (result) return result;
  }
  throw routingFailureError(loop.lastError ?? new GatewayError('provider_unavailable', 'No provider could serve the request.'), loop.attempts, plan);
}

/** The fast 503 of a shed request: which circuit is open and when it half-opens (Retry-After). */
function shedError(router: Router, models: CatalogModel[]): GatewayError {
  const ids = models.map((m) => m.id);
  const waitMs = Math.max(0, Math.min(...ids.map((id) => router.breaker.msUntilProbe(id))));
  return new GatewayError('provider_unavailable', `The circuit of ${ids.join(', ')} is open after repeated upstream failures; the request was not sent.`, {
    retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
    details: { circuit: 'open', models: ids },
  });
}

function* chain<T>(first: T[], rest: Iterable<T>): Generator<T> {
  yield* first;
  yield* rest;
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
    // The operator's discount makes up for a model it put in the chain; a model the client named itself is its own pick, at its price (as OpenRouter bills).
    discount: plan.chosen?.has(model.id) ? 0 : router.discountFor(plan.requested),
  };
  return { routing, fallback };
}
