import { z } from 'zod';

const rpm = z.number().int().positive();
const slots = z.number().int().positive();
/** Enterprise's "effectively unlimited" RPM and in-flight slots (spec §8.1 "custom"). */
const ENTERPRISE_RPM = 1_000_000;
const ENTERPRISE_SLOTS = 1_000;

/** `limits.store`: 'memory' (one process) or a Redis shared by every gateway process. */
export const limitsStoreSchema = z
  .union(
    [
      z.literal('memory'),
      z.strictObject({
        redis: z.string().regex(/^rediss?:\/\//, 'a redis:// or rediss:// address'),
        prefix: z.string().min(1).default('gw:rl:'),
        /** 'open' admits requests while Redis is down (flagged degraded); 'closed' answers 503. */
        onError: z.enum(['open', 'closed']).default('open'),
        commandTimeoutMs: z.number().int().min(10).max(10_000).default(300),
      }),
    ],
    // A Redis address from an env variable that is not set arrives as { redis: undefined }.
    { error: "expected 'memory' or { redis: 'redis://…' } (no redis address: is its env variable set?)" },
  )
  .default('memory');

/** The per-endpoint limits of spec §8.1; operators override entries or disable them with null. */
export const DEFAULT_ENDPOINT_LIMITS: Readonly<Record<string, EndpointLimit>> = {
  'POST /v1/chat/completions': { rpm: 60, per: 'caller' },
  'POST /v1/files': { rpm: 20, per: 'caller' },
  'POST /api/auth/login': { rpm: 5, per: 'ip' },
};

export interface EndpointLimit {
  rpm: number;
  /** 'caller' counts per account (else API key, else IP); 'ip' per client address. */
  per: 'caller' | 'ip';
}

const endpointLimitSchema = z.union([
  rpm.transform((value): EndpointLimit => ({ rpm: value, per: 'caller' })),
  z.strictObject({ rpm, per: z.enum(['caller', 'ip']).default('caller') }),
]);

/** `"METHOD /path"`, where a trailing `*` matches any rest of the path. */
const endpointPattern = z.string().regex(/^[A-Z]+ \/\S*$/, 'an endpoint is written "METHOD /path" (a trailing * matches a prefix)');

/**
 * Requests per window by tier; null = unlimited (no count, no X-RateLimit-* headers). Enterprise
 * is the spec's "custom, effectively unlimited": 1,000,000 a minute by default, a number no
 * client reaches but one that is counted, so its answers carry the headers every tier's do.
 */
const tierLimitsSchema = z
  .strictObject({
    free: rpm.nullable().default(10),
    basic: rpm.nullable().default(50),
    fellow: rpm.nullable().default(100),
    pro: rpm.nullable().default(100),
    enterprise: rpm.nullable().default(ENTERPRISE_RPM),
  })
  .prefault({});

/**
 * Concurrent in-flight AI-generation requests per caller. The spec names the header but no
 * numbers: these defaults are ours (enterprise 1,000, effectively unlimited but counted, for
 * X-Concurrency-Remaining). null = unlimited.
 */
const concurrencySchema = z
  .strictObject({
    /** For callers whose tier is unknown (or anonymous). */
    default: slots.nullable().default(10),
    tiers: z
      .strictObject({
        free: slots.nullable().default(2),
        basic: slots.nullable().default(5),
        fellow: slots.nullable().default(10),
        pro: slots.nullable().default(20),
        enterprise: slots.nullable().default(ENTERPRISE_SLOTS),
      })
      .prefault({}),
    /** A slot not released by then frees itself; keep it above the longest request. */
    ttlMs: z.number().int().positive().default(600_000),
  })
  .prefault({});

/** The `limits` section of the gateway config; every number defaults to spec §8.1. */
export const rateLimitConfigSchema = z
  .strictObject({
    /** Global default per caller on every non-exempt endpoint (row 4 of §8.1). */
    default: rpm.nullable().default(600),
    /** Window length; the spec counts requests per minute. */
    windowMs: z.number().int().positive().default(60_000),
    tiers: tierLimitsSchema,
    endpoints: z
      .record(endpointPattern, endpointLimitSchema.nullable())
      .default({})
      .transform((overrides) => mergeEndpointLimits(overrides)),
    concurrency: concurrencySchema,
    /**
     * Failed credentials (a dashboard session token, the admin token) one client address may
     * send per window before it is locked out for the rest of it; null: not counted.
     */
    failedCredentials: rpm.nullable().default(30),
    store: limitsStoreSchema,
  })
  .prefault({});

export type LimitsStoreConfig = z.output<typeof limitsStoreSchema>;
export type LimitsStoreConfigInput = z.input<typeof limitsStoreSchema>;
export type RateLimitConfig = z.output<typeof rateLimitConfigSchema>;
export type RateLimitConfigInput = z.input<typeof rateLimitConfigSchema>;

function mergeEndpointLimits(overrides: Record<string, EndpointLimit | null>): Record<string, EndpointLimit> {
  const merged: Record<string, EndpointLimit> = { ...DEFAULT_ENDPOINT_LIMITS };
  for (const [pattern, limit] of Object.entries(overrides)) {
    if (limit === null) delete merged[pattern];
    else merged[pattern] = limit;
  }
  return merged;
}
