import type { H3Event } from 'h3';
import type { CorsConfig } from '../config/index.ts';
import { requestHeader, setResponseHeader } from './context.ts';

/**
 * Request headers a browser app may send: auth, JSON, what the official OpenAI, Anthropic,
 * Google and AWS SDKs add (`x-stainless-*` telemetry, `anthropic-*`, `openai-*`, `x-goog-*`,
 * SigV4's `x-amz-*`), OpenRouter's attribution headers, and the gateway's own.
 */
const DEFAULT_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'x-api-key',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'anthropic-*',
  'openai-*',
  'x-stainless-*',
  // Google's SDKs (@google/genai in a browser: the Gemini face's key and its client header) and the AWS SDKs (SigV4, the Bedrock faces).
  'x-goog-api-key',
  'x-goog-api-client',
  // Google's resumable upload (@google/genai's files.upload): X-Goog-Upload-Protocol, -Command, -Offset, -Header-Content-Length/-Type.
  'x-goog-upload-*',
  'x-amz-*',
  'amz-sdk-*',
  'idempotency-key',
  'http-referer',
  'x-title',
  'x-correlation-id',
  'x-gateway-events',
  'x-session-id',
];

/** Response headers a browser app may read. */
const DEFAULT_EXPOSE = [
  'x-request-id',
  'request-id',
  'retry-after',
  'retry-after-ms',
  // false where spec §7 says not to retry (quota_exceeded, conflict, an upstream out of credit); the SDKs read it.
  'x-should-retry',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-used',
  'x-ratelimit-resource',
  'x-request-priority',
  'x-concurrency-remaining',
  'x-routing-mode',
  'x-routing-strategy',
  'x-routing-resolved-model',
  'x-routing-attempts',
  'x-fallback-used',
  'x-fallback-provider',
  'x-fallback-reason',
  'x-gateway-adapted',
  'x-gateway-dropped-tools',
  'x-fallback-discount',
  'x-media-generation-id',
  // What @google/genai's files.upload reads: where to send the bytes, and how far the upload is.
  'x-goog-upload-url',
  'x-goog-upload-status',
  'x-goog-upload-size-received',
  'x-goog-upload-control-url',
];

/** The CORS decisions of one config, precomputed. */
export interface Cors {
  /** The origin to echo in Access-Control-Allow-Origin ('*' or the request's), or undefined when not allowed. */
  allowOrigin(origin: string): string | undefined;
  /** Sets the headers of an actual (non-preflight) request from an allowed origin. */
  decorate(event: H3Event, allowOrigin: string): void;
  /** The preflight answer's headers for an allowed origin. */
  preflightHeaders(allowOrigin: string, requestedHeaders: string | undefined): Record<string, string>;
}

function originMatcher(origins: CorsConfig['origins']): (origin: string) => boolean {
  if (origins === '*') return () => true;
  const exact = new Set(origins.filter((o) => !o.includes('*')).map((o) => o.toLowerCase()));
  const wildcards = origins
    .filter((o) => o.includes('*'))
    .map((o) => {
      const [scheme, host] = o.toLowerCase().split('://*.');
      return { prefix: `${scheme}://`, suffix: `.${host}` };
    });
  return (origin) => {
    const o = origin.toLowerCase();
    return exact.has(o) || wildcards.some((w) => o.startsWith(w.prefix) && o.endsWith(w.suffix) && o.length > w.prefix.length + w.suffix.length);
  };
}

/** Builds the CORS policy of `server.cors`. */
export function createCors(config: CorsConfig): Cors {
  const matches = originMatcher(config.origins);
  const anyOrigin = config.origins === '*' && !config.credentials;
  const allowed = [...DEFAULT_HEADERS, ...config.headers].map((h) => h.toLowerCase());
  const names = new Set(allowed.filter((h) => !h.endsWith('*')));
  const prefixes = allowed.filter((h) => h.endsWith('*')).map((h) => h.slice(0, -1));
  const headerAllowed = (h: string) => names.has(h) || prefixes.some((p) => h.startsWith(p));
  const expose = [...new Set([...DEFAULT_EXPOSE, ...config.exposeHeaders.map((h) => h.toLowerCase())])].join(', ');
  const methods = config.methods.join(', ');
  const common = (allowOrigin: string): Record<string, string> => {
    const headers: Record<string, string> = { 'access-control-allow-origin': allowOrigin };
    if (allowOrigin !== '*') headers.vary = 'Origin';
    if (config.credentials) headers['access-control-allow-credentials'] = 'true';
    return headers;
  };
  return {
    allowOrigin: (origin) => (matches(origin) ? (anyOrigin ? '*' : origin) : undefined),
    decorate(event, allowOrigin) {
      for (const [name, value] of Object.entries(common(allowOrigin))) setResponseHeader(event, name, value);
      setResponseHeader(event, 'access-control-expose-headers', expose);
    },
    preflightHeaders(allowOrigin, requestedHeaders) {
      const requested = (requestedHeaders ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      // Echo the requested headers that are allowed: prefixes such as x-stainless-* cannot be listed.
      const granted = requested.filter(headerAllowed);
      const headers = common(allowOrigin);
      headers.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
      headers['access-control-allow-methods'] = methods;
      if (granted.length > 0) headers['access-control-allow-headers'] = granted.join(', ');
      headers['access-control-max-age'] = String(config.maxAge);
      return headers;
    },
  };
}

/** The request's Origin header, if any. */
export function originOf(event: H3Event): string | undefined {
  return requestHeader(event, 'origin');
}
