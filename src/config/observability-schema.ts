import { z } from 'zod';

/** Paths the gateway's own routes live under: `/metrics` may not shadow them. */
const RESERVED = /^\/(?:v1|admin|api|health)(?:\/|$)/;

/** `metrics`: the Prometheus endpoint on the gateway's port (docs/observability.md). */
export const metricsConfigSchema = z
  .object({
    /** Serve the endpoint and keep the series (default true). */
    enabled: z.boolean().default(true),
    path: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*$/, 'must be a path such as /metrics')
      .refine((path) => !RESERVED.test(path), 'must not be under /v1, /admin, /api or /health')
      .default('/metrics'),
    /** When set, scrapes must send `Authorization: Bearer <token>`. */
    token: z.string().min(1).optional(),
  })
  .prefault({});

/**
 * `logging.requests`: one JSON line per request to `'stdout'`, to a file path, or nowhere
 * (`false`, the default). `true` (the old boolean) means `'stdout'`.
 */
export const requestLogConfigSchema = z
  .union([z.boolean(), z.string().min(1)])
  .default(false)
  .transform((value): string | false => (value === true ? 'stdout' : value));

export type MetricsConfig = z.output<typeof metricsConfigSchema>;
export type RequestLogTarget = z.output<typeof requestLogConfigSchema>;
