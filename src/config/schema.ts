import { isIPv4, isIPv6 } from 'node:net';
import { storageConfigSchema } from './storage-schema.ts';
import { z } from 'zod';
import { MODEL_TYPES, TIERS } from '../ir/index.ts';
import { adminConfigSchema } from './admin-schema.ts';
import { storeConfigSchema } from './store-schema.ts';
import { corsConfigSchema } from './cors-schema.ts';
import { billingConfigSchema } from './billing-schema.ts';
import { rateLimitConfigSchema } from './limits-schema.ts';
import { metricsConfigSchema, requestLogConfigSchema } from './observability-schema.ts';
import { routingConfigSchema } from './routing-schema.ts';

/**
 * A wire format id. Plugins register formats when they load, after the config is read, so
 * the id is checked against the format registry when providers are set up (providers/registry.ts).
 */
const wireFormat = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'a wire format id such as chat, messages or responses');
const tier = z.enum(TIERS);
const modality = z.enum(['text', 'image', 'audio', 'file', 'video']);

/** USD per million tokens of each kind: a model's base prices and each long-context tier's. */
const tokenPrices = {
  input: z.number().nonnegative().optional(),
  output: z.number().nonnegative().optional(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  cacheWrite1h: z.number().nonnegative().optional(),
};

const pricingSchema = z.strictObject({
  ...tokenPrices,
  image: z.number().nonnegative().optional(),
  speechChars: z.number().nonnegative().optional(),
  audioMinute: z.number().nonnegative().optional(),
  perSecond: z.number().nonnegative().optional(),
  perJob: z.number().nonnegative().optional(),
  webSearch: z.number().nonnegative().optional(),
  /** The most searches one answer is billed for (a provider billing per grounded answer: 1); bounds the credit hold. */
  webSearchesPerAnswer: z.number().int().positive().optional(),
  /** Long-context tiers (docs/billing.md): above `aboveInputTokens` input tokens, these token prices for the whole request. */
  tiers: z.array(z.strictObject({ aboveInputTokens: z.number().int().nonnegative(), ...tokenPrices })).max(8).optional(),
});

const modelEntrySchema = z.union([
  z.string().min(1),
  z.strictObject({
    id: z.string().min(1),
    type: z.enum(MODEL_TYPES).optional(),
    capabilities: z.array(z.string()).optional(),
    formats: z.array(wireFormat).min(1).optional(),
    pricing: pricingSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    displayName: z.string().optional(),
    minTier: tier.optional(),
    modalities: z.object({ input: z.array(modality).min(1).optional(), output: z.array(modality).min(1).optional() }).optional(),
    sizes: z.array(z.string().min(1)).min(1).optional(),
    qualities: z.array(z.string().min(1)).min(1).optional(),
    styles: z.array(z.string().min(1)).min(1).optional(),
    n: z
      .object({ min: z.number().int().min(1), max: z.number().int().min(1) })
      .refine((r) => r.min <= r.max, 'min must not exceed max')
      .optional(),
    voices: z.array(z.string().min(1)).min(1).optional(),
    promptCache: z.enum(['auto', 'off']).optional(),
    hostedTools: z.enum(['drop', 'reject']).optional(),
    /**
     * The name the upstream serves this model under, when it is not `id` (an Azure OpenAI
     * deployment): sent as the upstream model id; prices and facts still come from `id`.
     */
    deployment: z.string().min(1).max(256).optional(),
    /**
     * The model this entry is, when its `id` does not say so (`{ id: 'my-gpt5-prod', baseModel:
     * 'gpt-5' }`): what the gateway knows of a model by its id (a reasoning model, OpenAI's own
     * fields, catalog facts and prices) is read from this id instead.
     */
    baseModel: z.string().min(1).max(256).optional(),
  }),
]);

const timeoutsSchema = z.strictObject({
  connect: z.number().int().positive().optional(),
  firstByte: z.number().int().positive().optional(),
  idle: z.number().int().positive().optional(),
  total: z.number().int().positive().optional(),
});

/** One configured upstream. Keys beyond these are the plugin's own options. */
export const providerConfigSchema = z.looseObject({
  plugin: z.string().min(1),
  // An http(s) URL: `localhost:11434/v1` (as Ollama's docs write it) parses as a URL of scheme `localhost:`, and the plugin's setup then failed with a bare "Invalid URL".
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL (e.g. http://localhost:11434/v1)' }).optional(),
  apiKey: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  models: z.array(modelEntrySchema).optional(),
  formats: z.array(wireFormat).min(1).optional(),
  timeouts: timeoutsSchema.optional(),
  /** Upstream calls in flight at once for this provider (docs/limits.md; default 1024). */
  maxConnections: z.number().int().positive().max(65_536).optional(),
  /** Calls waiting for a free connection beyond `maxConnections` (default 1024; 0 refuses at once). */
  maxQueued: z.number().int().nonnegative().max(1_000_000).optional(),
  /** How long a call waits for a connection before a 503 (ms, default 10000). */
  queueTimeoutMs: z.number().int().positive().max(600_000).optional(),
  /**
   * The largest request body (bytes) this upstream takes: a larger one (uploaded files carried
   * inline, say) is refused with 413 `request_too_large` before the call (docs/limits.md). Default:
   * the plugin's, from what its API documents (anthropic 32 MiB, google 100 MB; none for others).
   */
  maxRequestBytes: z.number().int().positive().optional(),
  enabled: z.boolean().optional(),
  /** Auto-routing order among providers serving the same model (lower first). */
  priority: z.number().optional(),
  weight: z.number().nonnegative().optional(),
  /** Gateway-placed Anthropic cache breakpoints on converted requests (docs/formats.md). */
  promptCache: z.enum(['auto', 'off']).optional(),
  /** Hosted tools the upstream cannot run (web_search, …): 'drop' them (default, named in X-Gateway-Dropped-Tools) or 'reject' with 422. */
  hostedTools: z.enum(['drop', 'reject']).optional(),
  /**
   * How batches whose lines all go to this provider run: the gateway's own executor
   * ('emulated', the default) or the upstream's batch API through the plugin ('native';
   * docs/batches.md).
   */
  batches: z.enum(['native', 'emulated']).optional(),
  /**
   * OpenRouter's own Chat request fields (`provider`, `plugins`, `transforms`, `route`, `usage`,
   * its `reasoning` object) on a same-format call: 'forward' them as written (an OpenRouter
   * upstream; the default when the base URL is openrouter.ai) or 'strip' them, `reasoning` becoming
   * `reasoning_effort` (the default elsewhere: OpenAI refuses unknown fields). docs/providers.md.
   */
  openRouterFields: z.enum(['forward', 'strip']).optional(),
});

const bodyLimitsSchema = z.strictObject({
  inference: z.number().int().positive().default(100 * 1024 * 1024),
  media: z.number().int().positive().default(25 * 1024 * 1024),
  other: z.number().int().positive().default(10 * 1024 * 1024),
  /** Most values (objects, arrays, strings, numbers, booleans, nulls) in one JSON body (413 above; docs/limits.md). */
  jsonValues: z.number().int().min(10_000).default(1_000_000),
  /** Bytes of large JSON bodies being read and parsed at once in this process (503 above; docs/limits.md). */
  inFlight: z.number().int().positive().default(256 * 1024 * 1024),
});

const trustProxySchema = z.union([
  z.boolean(),
  z.number().int().min(0).max(64),
  z
    .array(z.string().min(1))
    .min(1)
    .superRefine((cidrs, ctx) => {
      for (const cidr of cidrs) {
        const [address, prefix] = cidr.trim().split('/');
        const bare = address.replace(/^\[|\]$/g, '');
        const max = isIPv4(bare) ? 32 : isIPv6(bare) ? 128 : -1;
        const bits = prefix === undefined ? max : Number(prefix);
        if (max < 0 || !Number.isInteger(bits) || bits < 0 || bits > max) ctx.addIssue({ code: 'custom', message: `'${cidr}' is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8)` });
      }
    }),
]);

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      port: z.number().int().min(0).max(65535).default(8787),
      host: z.string().min(1).default('127.0.0.1'),
      bodyLimits: bodyLimitsSchema.prefault({}),
      /** Open connections per listener; past it a request is answered 503 with Retry-After (docs/limits.md). */
      maxConnections: z.number().int().positive().default(10_000),
      /** Streams one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS); past it a stream is refused, REFUSED_STREAM (docs/limits.md). */
      maxConcurrentStreams: z.number().int().positive().max(2 ** 31 - 1).default(128),
      /** Seconds to let in-flight requests finish on SIGINT/SIGTERM. */
      shutdownGraceSeconds: z.number().nonnegative().default(10),
      /**
       * Behind reverse proxies: the client address is the one the trusted proxies appended to
       * X-Forwarded-For. true = 1 proxy; a number = that many proxies in front; a list = the
       * proxies' CIDRs (docs/config.md, "Behind a reverse proxy").
       */
      trustProxy: trustProxySchema.default(false),
      /** Browser origins allowed to call the gateway (docs/api-decisions.md, CORS). */
      cors: corsConfigSchema.optional(),
      /** Where the admin procedures answer: loopback clients of the public listener by default (docs/admin.md). */
      admin: adminConfigSchema.optional(),
    })
    .prefault({}),
  dataDir: z.string().min(1).optional(),
  /** Where records live: the data dir (default) or PostgreSQL (docs/scale-out.md). */
  store: storeConfigSchema,
  providers: z.record(z.string().regex(/^[a-zA-Z0-9_.-]+$/, 'provider ids use letters, digits, _ . -'), providerConfigSchema).default({}),
  defaults: z
    .strictObject({
      /** max_tokens sent to Messages upstreams when the client gave none. */
      maxTokens: z.number().int().positive().default(4096),
      /** The model of an image request that names none (the OpenAI SDK lets `model` be left out); unset: such a request is 400, as spec §4.2 makes `model` required. */
      imageModel: z.string().min(1).max(256).optional(),
    })
    .prefault({}),
  routing: routingConfigSchema.prefault({}),
  /** Rate limits and their store (docs/accounts-and-limits.md). */
  limits: rateLimitConfigSchema,
  /** Credit reservations and the usage ledger (docs/accounts-and-limits.md). */
  billing: billingConfigSchema,
  media: z.looseObject({}).default({}),
  logging: z
    .strictObject({
      level: z.enum(['silent', 'error', 'warn', 'info', 'debug']).default('info'),
      /** One JSON line per request: 'stdout', a file path, or false (docs/observability.md). */
      requests: requestLogConfigSchema,
    })
    .prefault({}),
  /** The Prometheus endpoint (docs/observability.md). */
  metrics: metricsConfigSchema,
  /** Files and batches (docs/batches.md). */
  batches: z
    .strictObject({
      /** Lines a batch executor runs at once per instance (below live traffic). */
      concurrency: z.number().int().positive().max(256).default(4),
      /** A batch line costs this times the synchronous price. */
      priceMultiplier: z.number().nonnegative().max(10).default(0.5),
      /** Largest upload to POST /v1/files (413 above). */
      maxFileBytes: z.number().int().positive().default(200 * 1024 * 1024),
      /** Most lines in a batch input file (413 at upload above it). */
      maxFileLines: z.number().int().positive().default(50_000),
      /**
       * How long an instance's claim on a running batch lasts (ms; renewed every third of it).
       * When the instance dies, another one resumes the batch this long after its last renewal.
       */
      leaseMs: z.number().int().min(1_000).max(600_000).default(30_000),
      /** How often a native batch's upstream is polled (ms). */
      pollIntervalMs: z.number().int().positive().max(3_600_000).default(30_000),
      /**
       * Bytes of input files of the batches one instance runs at once (each holds its parsed lines,
       * several times its file's bytes, while it runs); the next batch waits its turn past them.
       * One batch always runs, whatever its size.
       */
      runningInputBytes: z.number().int().positive().default(64 * 1024 * 1024),
      /** Batches one account may have not ended at once, on every face and instance together (429 `quota_exceeded` beyond). */
      maxOpenPerAccount: z.number().int().positive().max(100_000).default(500),
    })
    .prefault({}),
  /** Uploads and per-account storage quotas (docs/limits.md). */
  storage: storageConfigSchema,
  /** The web dashboard at `/` (docs/dashboard.md); off, `/` still answers 200 with a short text. */
  dashboard: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** How long a dashboard session (`POST /api/auth/login`) lasts, in seconds (default 7 days). */
      sessionTtlSeconds: z.number().int().min(1).max(365 * 24 * 3600).default(7 * 24 * 3600),
    })
    .prefault({}),
});

/** The config as written by the user (before defaults). */
export type GatewayConfigInput = z.input<typeof configSchema>;
/** The config after validation and defaults. */
export type GatewayConfig = z.output<typeof configSchema>;
export type ProviderConfig = z.output<typeof providerConfigSchema>;
export type ModelEntry = z.output<typeof modelEntrySchema>;
