import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';

export { openAIErrorType } from '../../errors/index.ts';

/** The spec §7 envelope, which carries OpenAI's `error.type` and `error.param`, so OpenAI SDKs read it natively. */
export function encodeChatError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  return buildErrorEnvelope(error, ids) as unknown as Record<string, unknown>;
}

/**
 * A mid-stream error: `data: {"error":…}` with the same body as a non-streamed error. No
 * `[DONE]` follows (a client would read it as a normal end); the server closes the stream.
 */
export function encodeChatStreamError(error: GatewayError, ids: RequestIds): SseRecord {
  return jsonRecord(undefined, encodeChatError(error, ids));
}
