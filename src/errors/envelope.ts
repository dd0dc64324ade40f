import { redactSecrets } from '../util/index.ts';
import type { GatewayError } from './gateway-error.ts';

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    /** OpenAI's error class (`invalid_request_error`, `authentication_error`…), which SDKs branch on. */
    type: string;
    /** The offending request field, or null. */
    param: string | null;
    request_id: string;
    details?: Record<string, unknown>;
    docs_url?: string;
    retry_after?: number;
    [extra: string]: unknown;
  };
  timestamp: number;
  correlation_id: string;
  [extra: string]: unknown;
}

export interface RequestIds {
  requestId: string;
  correlationId: string;
}

/**
 * The OpenAI `error.type` for a status (what OpenAI SDKs and clients branch on). A 429 that no
 * wait mends (the account's quota, or an upstream's `insufficient_quota` in `details`) says
 * `insufficient_quota`, as OpenAI does: Codex stops at it instead of retrying.
 */
export function openAIErrorType(status: number, code?: string, details?: Record<string, unknown>): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return code === 'quota_exceeded' || details?.upstream_quota_exhausted === true ? 'insufficient_quota' : 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The offending field: `details.param`, else the first missing one (400), else the first of `details.fields`, else null. */
export function errorParam(details: Record<string, unknown> | undefined): string | null {
  if (!details) return null;
  if (typeof details.param === 'string') return details.param;
  if (Array.isArray(details.missing) && typeof details.missing[0] === 'string') return details.missing[0];
  const fields = details.fields;
  if (typeof fields === 'object' && fields !== null) return Object.keys(fields)[0] ?? null;
  return null;
}

/**
 * The spec §7 envelope for an error, with OpenAI's `type` and `param` on every route (inference,
 * media, models, usage, auth, unknown routes), so any OpenAI-style client reads it natively.
 * The message never carries a configured upstream key (redacted by value).
 */
export function buildErrorEnvelope(error: GatewayError, ids: RequestIds): ErrorEnvelope {
  const body: ErrorEnvelope = {
    error: {
      code: error.code,
      message: redactSecrets(error.message),
      type: openAIErrorType(error.status, error.code, error.details),
      param: errorParam(error.details),
      request_id: ids.requestId,
    },
    timestamp: Math.floor(Date.now() / 1000),
    correlation_id: ids.correlationId,
  };
  if (error.details) body.error.details = error.details;
  if (error.retryAfter !== undefined) body.error.retry_after = error.retryAfter;
  return body;
}
