/** The stable error codes of spec §7 and the HTTP status each one maps to. */
export const ERROR_STATUS = {
  bad_request: 400,
  // An upstream's content policy refused the prompt (Azure OpenAI's content filter): the request's content, not its form.
  content_filter: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  insufficient_balance: 402,
  authorization_error: 403,
  model_tier_restricted: 403,
  model_unpriced: 403,
  account_suspended: 403,
  not_found: 404,
  model_not_found: 404,
  file_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_too_large: 413,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // A WebSocket upgrade on a route served over HTTP only: Codex reads 426 as "no WebSocket here" and uses HTTPS at once.
  upgrade_required: 426,
  validation_error: 422,
  rate_limit_exceeded: 429,
  quota_exceeded: 429,
  // nginx's convention: the client went away before the answer; never sent, only recorded (request log, metrics).
  client_closed: 499,
  internal_error: 500,
  provider_error: 502,
  provider_unavailable: 503,
  service_unavailable: 503,
  provider_timeout: 504,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes a client (or the gateway's own retry loop) may retry with backoff (spec §7). */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limit_exceeded',
  'provider_error',
  'provider_timeout',
  'provider_unavailable',
]);

/**
 * Codes whose status the openai and Anthropic SDKs retry by default (409, 429) though spec §7 does
 * not: a quota used up and a state conflict stay so until the request or the state changes. Their
 * answers say `x-should-retry: false`, which both SDKs obey.
 */
export const NOT_RETRIED_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['quota_exceeded', 'conflict']);

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}
