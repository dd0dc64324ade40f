import type { ErrorCode } from '../../errors/index.ts';
import { ERROR_STATUS } from '../../errors/index.ts';
import type { StreamError } from '../../ir/types.ts';

const BY_TYPE: Readonly<Record<string, ErrorCode>> = {
  rate_limit_error: 'rate_limit_exceeded',
  rate_limit_exceeded: 'rate_limit_exceeded',
  insufficient_quota: 'rate_limit_exceeded',
  overloaded_error: 'provider_unavailable',
  timeout_error: 'provider_timeout',
  request_too_large: 'request_too_large',
  invalid_request_error: 'bad_request',
};

/**
 * An error an upstream reported inside a stream → the IR stream error. Throttling, overload
 * and timeouts keep their meaning (OpenAI's `code` is checked before its `type`) (clients retry on them); anything else is a provider error.
 */
export function streamErrorFromUpstream(type: string | undefined, message: string, upstreamCode?: string): StreamError {
  const code: ErrorCode = (upstreamCode !== undefined && BY_TYPE[upstreamCode]) || (type !== undefined && BY_TYPE[type]) || 'provider_error';
  return { code, message: message || 'The upstream provider reported an error.', status: ERROR_STATUS[code] };
}
