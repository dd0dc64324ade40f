import { ERROR_STATUS, type ErrorCode } from '../../errors/index.ts';

const TYPE_BY_CODE: Partial<Record<ErrorCode, string>> = {
  authentication_error: 'authentication_error',
  invalid_api_key: 'authentication_error',
  authorization_error: 'permission_error',
  model_tier_restricted: 'permission_error',
  model_unpriced: 'permission_error',
  account_suspended: 'permission_error',
  insufficient_balance: 'insufficient_quota',
  quota_exceeded: 'insufficient_quota',
  rate_limit_exceeded: 'rate_limit_error',
  not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  file_not_found: 'not_found_error',
  internal_error: 'api_error',
  provider_error: 'api_error',
  provider_unavailable: 'api_error',
  service_unavailable: 'api_error',
  provider_timeout: 'api_error',
  gateway_timeout: 'api_error',
};

/** The OpenAI-style `error.type` for a gateway error code (what the openai SDK exposes as `err.type`). */
export function openAiErrorType(code: string): string {
  return TYPE_BY_CODE[code as ErrorCode] ?? (code in ERROR_STATUS ? 'invalid_request_error' : 'api_error');
}

/** The `error.param` an OpenAI client expects: the first offending field of a validation error. */
export function openAiErrorParam(details: Record<string, unknown> | undefined): string | null {
  const fields = details?.fields;
  if (typeof fields !== 'object' || fields === null) return null;
  return Object.keys(fields)[0] ?? null;
}
