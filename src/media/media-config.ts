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
});

export type MediaConfig = z.output<typeof mediaConfigSchema>;

/** Parses `config.media`, naming the offending key when it is invalid (`where`: the config file). */
export function parseMediaConfig(input: unknown, where = 'config'): MediaConfig {
  const parsed = mediaConfigSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${where}: ${explainConfigIssues(mediaConfigSchema, parsed.error.issues, ['media'])}`);
}
