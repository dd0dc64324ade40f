import type { DecodedUpstreamError } from '../types.ts';
import { readErrorBody } from '../shared/index.ts';

/** An upstream Anthropic error body (`{type:"error", error:{type,message}}`) → what it says. */
export function decodeMessagesError(status: number, body: unknown): DecodedUpstreamError {
  return readErrorBody(status, body);
}
