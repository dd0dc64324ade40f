import type { GatewayError } from './gateway-error.ts';

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
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

/** The spec §7 envelope for an error. */
export function buildErrorEnvelope(error: GatewayError, ids: RequestIds): ErrorEnvelope {
  const body: ErrorEnvelope = {
    error: {
      code: error.code,
      message: error.message,
      request_id: ids.requestId,
    },
    timestamp: Math.floor(Date.now() / 1000),
    correlation_id: ids.correlationId,
  };
  if (error.details) body.error.details = error.details;
  if (error.retryAfter !== undefined) body.error.retry_after = error.retryAfter;
  return body;
}
