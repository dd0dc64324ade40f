import { z } from 'zod';

/** How auto-routing orders the providers that serve one model. */
export const routingStrategySchema = z.enum(['priority', 'price', 'latency', 'weighted']);

const fraction = z.number().min(0).max(1);

/** Per-model routing: a strategy, an explicit fallback chain, a discount override. */
const modelRoutingSchema = z.strictObject({
  strategy: routingStrategySchema.optional(),
  /** Tried after the model's own candidates: `provider/model` pins one, a bare id lists all its providers. */
  fallbacks: z.array(z.string().min(1)).optional(),
  fallbackDiscount: fraction.optional(),
  /** Start a second upstream call if the first has not answered after `delayMs`; the first answer wins. */
  hedge: z.strictObject({ delayMs: z.number().int().positive() }).optional(),
});

const breakerSchema = z.strictObject({
  /** Consecutive failures that open the circuit of one provider+model. */
  failureThreshold: z.number().int().positive().default(5),
  /** How long an open circuit stays open before one half-open probe is let through. */
  cooldownMs: z.number().int().positive().default(30_000),
});

const retrySchema = z.strictObject({
  /** Calls of one candidate per request, the first included (1 = never retry the same candidate). */
  attempts: z.number().int().min(1).max(10).default(3),
  /** First backoff step; the n-th retry waits a random time in [0, min(maxMs, baseMs·2ⁿ)] (full jitter). */
  baseMs: z.number().int().nonnegative().default(250),
  /** Cap of one wait. A Retry-After longer than this is not waited for: the candidate is given up. */
  maxMs: z.number().int().nonnegative().default(5_000),
  /** No new attempt (or wait) starts once this much time has passed since the request arrived. */
  budgetMs: z.number().int().positive().default(30_000),
});

/** Sticky routing for prompt caches: a session's requests stay on the provider that served its first one. */
const stickySchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Where the session key is read, first found wins: OpenAI `prompt_cache_key`, Anthropic `metadata.user_id`, the `X-Session-Id` header. */
  keys: z.array(z.enum(['prompt_cache_key', 'metadata.user_id', 'x-session-id'])).default(['x-session-id', 'prompt_cache_key', 'metadata.user_id']),
  /** How long a session keeps its provider after its last request. */
  ttlMs: z.number().int().positive().default(3_600_000),
  /** Sessions remembered per instance (the oldest is forgotten first). */
  maxSessions: z.number().int().positive().default(100_000),
  /** Hedged calls for a session's requests: off by default (a hedge warms a second cache for nothing). */
  hedge: z.boolean().default(false),
});

const latencySchema = z.strictObject({
  /** Weight of the newest time-to-first-byte sample in the moving average. */
  alpha: z.number().gt(0).max(1).default(0.3),
});

/** The `routing` section of the gateway config. */
export const routingConfigSchema = z.strictObject({
  strategy: routingStrategySchema.default('priority'),
  models: z.record(z.string().min(1), modelRoutingSchema).default({}),
  breaker: breakerSchema.prefault({}),
  retry: retrySchema.prefault({}),
  latency: latencySchema.prefault({}),
  sticky: stickySchema.prefault({}),
  /** Fraction taken off the price when a fallback served the request (0.1 = 10% off). */
  fallbackDiscount: fraction.default(0.1),
  /**
   * Reliability events in streams: `opt-in` (default) sends them when the request has
   * `X-Gateway-Events: routing`; `always` sends them unless it says `none`; `off` never.
   */
  events: z.enum(['opt-in', 'always', 'off']).default('opt-in'),
});

export type RoutingStrategy = z.output<typeof routingStrategySchema>;
export type RoutingConfig = z.output<typeof routingConfigSchema>;
export type RoutingConfigInput = z.input<typeof routingConfigSchema>;
export type ModelRoutingConfig = z.output<typeof modelRoutingSchema>;
