import type { DecodedUpstreamError } from '../types.ts';
import { readErrorBody } from '../shared/index.ts';

/** An upstream OpenAI-style error body (`{error:{message,type,param,code}}`) → what it says. */
export function decodeChatError(status: number, body: unknown): DecodedUpstreamError {
  return readErrorBody(status, body);
}
