import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';

/** The OpenAI `error.type` for a status (what OpenAI SDKs and clients branch on). */
export function openAIErrorType(status: number, code?: string): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return code === 'quota_exceeded' ? 'insufficient_quota' : 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The spec §7 envelope plus OpenAI's `error.type` and `error.param`, so OpenAI SDKs read it natively. */
export function encodeChatError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  const envelope = buildErrorEnvelope(error, ids);
  envelope.error.type = openAIErrorType(error.status, error.code);
  envelope.error.param = errorParam(error.details);
  return envelope;
}

/**
 * A mid-stream error: `data: {"error":…}` with the same body as a non-streamed error. No
 * `[DONE]` follows (a client would read it as a normal end); the server closes the stream.
 */
export function encodeChatStreamError(error: GatewayError, ids: RequestIds): string {
  return `data: ${JSON.stringify(encodeChatError(error, ids))}\n\n`;
}

/** The offending field: `details.param`, else the first of a 422's `details.fields`, else null. */
function errorParam(details: Record<string, unknown> | undefined): string | null {
  if (!details) return null;
  if (typeof details.param === 'string') return details.param;
  const fields = details.fields;
  if (typeof fields === 'object' && fields !== null) return Object.keys(fields)[0] ?? null;
  return null;
}
