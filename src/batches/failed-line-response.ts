import { buildErrorEnvelope, type GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/index.ts';
import type { BatchRecord } from '../store/index.ts';
import { formatOfEndpoint, isMediaEndpoint } from './format-of-endpoint.ts';

/**
 * A failed line's `response`: its status and the error body the batch's endpoint answers live
 * (the spec §7 envelope with OpenAI's `type` and `param`, or Anthropic's on /v1/messages), so
 * a client reads it as it reads a live error. Null for a line refused before it ran (no balance).
 */
export function failedLineResponse(batch: BatchRecord, error: GatewayError, requestId: string): { status_code: number; request_id: string; body: Record<string, unknown> } | null {
  if (error.code === 'insufficient_balance') return null;
  const ids = { requestId, correlationId: batch.id };
  const body = isMediaEndpoint(batch.endpoint) ? (buildErrorEnvelope(error, ids) as unknown as Record<string, unknown>) : getCodec(formatOfEndpoint(batch.endpoint)).encodeError(error, ids);
  return { status_code: error.status, request_id: requestId, body };
}
