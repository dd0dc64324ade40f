import type { ProviderRegistry } from '../providers/index.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { routingConfigSchema, type RoutingConfig, type RoutingConfigInput } from '../config/index.ts';
import { LatencyTracker } from './latency-tracker.ts';
import type { OrderContext } from './order-candidates.ts';
import { isChatType, planChatRoute, planRoute, type CandidateFilter } from './plan-route.ts';
import { RefusedAsks } from './refused-asks.ts';
import { StickySessions } from './sticky-sessions.ts';
import type { RoutePlan } from './types.ts';

export interface RouterOptions {
  now?: () => number;
  random?: () => number;
}

/** The routing state of one registry: config, circuit breakers and latency averages. */
export class Router {
  readonly breaker: CircuitBreaker;
  readonly latency: LatencyTracker;
  readonly sticky: StickySessions;
  /** Asks each provider refused for its account (a reasoning summary), left out of its next calls for an hour. */
  readonly refusedAsks: RefusedAsks;
  readonly now: () => number;
  readonly random: () => number;
  /** What ordering reads (latency averages, the random source): made once, not per plan. */
  private readonly ordering: OrderContext;

  constructor(
    readonly registry: ProviderRegistry,
    readonly config: RoutingConfig,
    options: RouterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.breaker = new CircuitBreaker({ ...config.breaker, now: this.now });
    this.latency = new LatencyTracker(config.latency.alpha);
    this.sticky = new StickySessions(config.sticky);
    this.refusedAsks = new RefusedAsks(this.now);
    this.ordering = { latency: (id) => this.latency.get(id), random: this.random };
  }

  /** The candidates of a requested model id, in the order they will be tried (`fallbacks`: the request's own, after the config's chain). */
  plan(requested: string, accept: CandidateFilter, fallbacks?: readonly string[]): RoutePlan {
    return planRoute(this.registry, this.config, requested, accept, this.ordering, fallbacks);
  }

  /** The candidates of a requested model id for a chat-like request: chat models `accept` takes (see `planChatRoute`: another type is told as such). */
  planChat(requested: string, accept: CandidateFilter = isChatType, fallbacks?: readonly string[]): RoutePlan {
    return planChatRoute(this.registry, this.config, requested, accept, this.ordering, fallbacks);
  }

  /** The discount a fallback earns on this requested model. */
  discountFor(requested: string): number {
    return this.config.models[requested]?.fallbackDiscount ?? this.config.fallbackDiscount;
  }

  /** The hedge delay configured for this requested model, if any. */
  hedgeDelayFor(requested: string): number | undefined {
    return this.config.models[requested]?.hedge?.delayMs;
  }

  /** Whether a stream carries routing/fallback events, given the request's `X-Gateway-Events`. */
  eventsWanted(header: string | undefined): boolean {
    const values = (header ?? '').toLowerCase().split(/[\s,]+/).filter(Boolean);
    if (this.config.events === 'off' || values.includes('none')) return false;
    if (this.config.events === 'always') return true;
    return values.some((v) => v === 'routing' || v === 'fallback' || v === 'all' || v === 'true' || v === '1');
  }
}

/**
 * The router of a running gateway, made once by the composition root and passed to whoever
 * routes: breaker and latency state live as long as it does.
 */
export function createRouter(registry: ProviderRegistry, config?: RoutingConfig | RoutingConfigInput, options?: RouterOptions): Router {
  return new Router(registry, routingConfigSchema.parse(config ?? {}), options);
}
