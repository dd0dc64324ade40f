import { z } from 'zod';

/** An origin as browsers send it (`https://app.example.com`, `http://localhost:5173`), or with a `*.` subdomain wildcard. */
const origin = z
  .string()
  .regex(/^https?:\/\/(\*\.)?[^/*\s]+$/, 'an origin is scheme://host[:port] with no path, e.g. "https://app.example.com" or "https://*.example.com"');

/** A header name, or a prefix ending in `*` (`x-stainless-*`). */
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'+.^_`|~-]+\*?$/, 'a header name, or a prefix ending in *');

/**
 * `server.cors`: which browser origins may call the gateway directly. Absent: no CORS headers
 * at all. The defaults allow what the official OpenAI and Anthropic SDKs send from a browser.
 */
export const corsConfigSchema = z.strictObject({
  /** Allowed origins, or '*' for any. */
  origins: z.union([z.literal('*'), z.array(origin).min(1)]),
  /** Methods a preflight allows. */
  methods: z.array(z.string().regex(/^[A-Z]+$/, 'an upper-case HTTP method')).default(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS']),
  /** Request headers allowed beyond the defaults (Authorization, X-API-Key, anthropic-*, x-stainless-*…). */
  headers: z.array(headerName).default([]),
  /** Response headers exposed beyond the defaults (X-Request-ID, rate-limit and routing headers). */
  exposeHeaders: z.array(z.string().regex(/^[A-Za-z0-9-]+$/)).default([]),
  /** Send Access-Control-Allow-Credentials (cookies); the origin is then echoed, never '*'. */
  credentials: z.boolean().default(false),
  /** Seconds a browser may cache a preflight. */
  maxAge: z.number().int().nonnegative().max(86_400).default(600),
});

export type CorsConfig = z.output<typeof corsConfigSchema>;
