import { ERROR_STATUS, GatewayError, type ErrorCode } from '../../errors/index.ts';
import type { StreamError } from '../../ir/index.ts';
import { classifyUpstreamError, QUOTA_EXHAUSTED } from '../../upstream/index.ts';

/**
 * An error an upstream reported inside a stream → the IR stream error, classified like the
 * same fault anywhere else (see classifyUpstreamError): throttling, overload and timeouts keep
 * their meaning, so clients retry on them.
 */
export function streamErrorFromUpstream(type: string | undefined, message: string, upstreamCode?: string, param?: string, upstreamStatus?: number): StreamError {
  const code = classifyUpstreamError({ type, code: upstreamCode, phase: 'mid-stream' });
  const error: StreamError = { code, message: message || 'The upstream provider reported an error.', status: ERROR_STATUS[code] };
  if (upstreamCode !== undefined) error.upstreamCode = upstreamCode;
  // As on an HTTP answer (upstreamError): the field it refused is named on a refusal of the request only.
  if (param !== undefined && (code === 'bad_request' || code === 'content_filter')) error.param = param;
  // As on an HTTP answer (upstreamError): out of credit is told apart from throttling, so the client does not retry.
  if (code === 'rate_limit_exceeded' && QUOTA_EXHAUSTED.test(`${upstreamCode ?? ''} ${type ?? ''}`)) error.quotaExhausted = true;
  if (isHttpStatus(upstreamStatus)) error.upstreamStatus = upstreamStatus;
  return error;
}

/** A number an upstream names as an HTTP error status (Gemini's `error.code`, Bedrock's `originalStatusCode`): an integer 100–599. */
export function isHttpStatus(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;
}

/**
 * An IR stream error as a GatewayError, so a stream encoder ends its stream with the same body
 * its format's codec gives any other error (spec §7 envelope: stable code, request id).
 */
export function gatewayErrorOf(error: StreamError): GatewayError {
  const details: Record<string, unknown> = {};
  if (error.upstreamCode !== undefined) details.upstream_code = error.upstreamCode;
  if (error.param !== undefined) details.param = error.param;
  if (error.quotaExhausted) details.upstream_quota_exhausted = true;
  // As on an HTTP answer (upstreamError): what a Bedrock client reads as ModelStreamErrorException's originalStatusCode.
  if (error.upstreamStatus !== undefined) details.upstream_status = error.upstreamStatus;
  return new GatewayError(error.code as ErrorCode, error.message, { status: error.status, ...(Object.keys(details).length > 0 ? { details } : {}) });
}
