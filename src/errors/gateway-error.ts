import { ERROR_STATUS, RETRYABLE_CODES, type ErrorCode } from './codes.ts';

export interface GatewayErrorOptions {
  details?: Record<string, unknown>;
  retryAfter?: number;
  cause?: unknown;
  /** Overrides the status derived from the code (e.g. an upstream 529 kept as 503). */
  status?: number;
  headers?: Record<string, string>;
}

/** The one error type of the gateway: a stable code, a status derived from it, a retryable flag. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.code);
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** 422 with field path → message mappings under details.fields (spec §7). */
export function validationError(fields: Record<string, string>, message?: string): GatewayError {
  const first = Object.entries(fields)[0];
  return new GatewayError('validation_error', message ?? (first ? `Invalid parameter '${first[0]}': ${first[1]}` : 'Invalid parameters'), {
    details: { fields },
  });
}

/** Turns anything thrown into a GatewayError without leaking internals. */
export function toGatewayError(value: unknown): GatewayError {
  if (value instanceof GatewayError) return value;
  return new GatewayError('internal_error', 'An unexpected error occurred.', { cause: value });
}
