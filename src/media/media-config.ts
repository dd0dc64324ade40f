import { z } from 'zod';
import { ConfigError, explainConfigIssues } from '../config/index.ts';

/** The `media` section of the config (the main schema keeps it loose; this module owns it). */
export const mediaConfigSchema = z.strictObject({
  /** How long a `response_format: url` image stays downloadable, in seconds (OpenAI: 60 min). */
  tempImageTtlSeconds: z.number().int().positive().default(3600),
  /** Origin put in image URLs (e.g. https://gateway.example.com); default: the request's own origin. */
  publicBaseURL: z.url().optional(),
  /** How often expired Media Library records and temporary images are purged, in seconds. */
  purgeIntervalSeconds: z.number().int().positive().default(3600),
  /** Video, music and 3D jobs the gateway runs (docs/media.md#jobs). */
  jobs: z
    .strictObject({
      /** How often a running job's provider is asked where it is (ms). */
      pollIntervalMs: z.number().int().positive().default(1000),
      /** How long an instance's claim on a job lasts unrenewed (ms): another instance resumes it after. */
      leaseMs: z.number().int().positive().default(15_000),
      /** Jobs one account may have running at once (429 rate_limit_exceeded beyond). */
      maxInFlightPerAccount: z.number().int().positive().default(10),
      /** Bytes of fetched job content kept in `<dataDir>/media-content/` (oldest dropped beyond). */
      contentCacheBytes: z.number().int().nonnegative().default(512 * 1024 * 1024),
      /** The largest content item fetched from a provider (bytes; 502 beyond). */
      maxContentBytes: z.number().int().positive().default(256 * 1024 * 1024),
      /** A job not final after this long is ended `expired` (seconds). */
      timeoutSeconds: z.number().int().positive().default(6 * 3600),
      /** Master secret the per-account webhook secrets derive from; default: `<dataDir>/webhook-secret` (set it when instances share a database). */
      webhookSecret: z.string().min(16).optional(),
      /** Deliveries tried per webhook before giving up (1 s, 2 s, 4 s … apart, at most 5 min). */
      webhookAttempts: z.number().int().positive().max(20).default(8),
      /**
       * Deliver webhooks to loopback, private and link-local addresses (a receiver on this machine or
       * its network). Off, a `callback_url` naming one is refused (422) and a name resolving to one is
       * not connected to: any API key could otherwise make the gateway POST to internal services.
       */
      webhookPrivateAddresses: z.boolean().default(false),
    })
    .prefault({}),
});

export type MediaConfig = z.output<typeof mediaConfigSchema>;

/** Parses `config.media`, naming the offending key when it is invalid (`where`: the config file). */
export function parseMediaConfig(input: unknown, where = 'config'): MediaConfig {
  const parsed = mediaConfigSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${where}: ${explainConfigIssues(mediaConfigSchema, parsed.error.issues, ['media'])}`);
}
