import { GatewayError } from '../errors/index.ts';
import type { WireFormat } from '../ir/types.ts';
import { SseParser, type SseRecord } from '../sse/index.ts';
import { mapUpstreamError } from './map-upstream-error.ts';

/** An upstream stream whose first record was read, ready to be relayed from the start. */
export interface PeekedStream {
  /** The whole body again: the bytes already read, then the rest. */
  body: AsyncIterable<Uint8Array>;
}

/** The HTTP status an in-stream error type stands for, so it maps like the same error before the stream. */
function statusOfErrorType(type: string): number {
  if (/overloaded/.test(type)) return 529;
  if (/rate_limit/.test(type)) return 429;
  if (/timeout/.test(type)) return 504;
  if (/invalid_request|invalid_prompt|context_length|bad_request|not_found/.test(type)) return 400;
  if (/authentication|permission/.test(type)) return 401;
  return 500;
}

function readError(record: SseRecord, format: WireFormat): { type: string; message: string } | undefined {
  const isErrorEvent = record.event === 'error' || record.event === 'response.failed';
  if (!isErrorEvent && !(format === 'chat' && record.data.includes('"error"'))) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(record.data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const response = parsed.response as Record<string, unknown> | undefined;
  const error = (parsed.error ?? response?.error ?? (isErrorEvent ? parsed : undefined)) as Record<string, unknown> | undefined;
  if (!error || typeof error !== 'object') return undefined;
  // Responses `error` events say `type: "error"` and put the kind in `code`.
  const kind = [error.type, error.code, parsed.code].find((v) => typeof v === 'string' && v !== 'error');
  const type = String(kind ?? 'api_error');
  return { type, message: String(error.message ?? parsed.message ?? type) };
}

/**
 * Reads an upstream stream up to its first complete record, while nothing has reached the
 * client: an empty stream, a transport failure or an error record there (Anthropic sends
 * `overloaded_error` after a 200) throws a GatewayError the router can fall back on.
 */
export async function peekStream(body: AsyncIterable<Uint8Array>, format: WireFormat, providerId: string): Promise<PeekedStream> {
  const iterator = body[Symbol.asyncIterator]();
  const parser = new SseParser();
  const read: Uint8Array[] = [];
  let first: SseRecord | undefined;
  let ended = false;
  while (!first) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      first = parser.end()[0];
      break;
    }
    read.push(next.value);
    first = parser.push(next.value)[0];
  }
  if (!first) {
    throw new GatewayError('provider_error', `The provider '${providerId}' returned an empty stream.`, { details: { provider: providerId } });
  }
  const error = readError(first, format);
  if (error) {
    await iterator.return?.();
    const decoded = { message: error.message, type: error.type };
    throw mapUpstreamError(providerId, statusOfErrorType(error.type), decoded, {});
  }
  return {
    body: {
      async *[Symbol.asyncIterator]() {
        yield* read;
        if (ended) return;
        try {
          for (;;) {
            const next = await iterator.next();
            if (next.done) return;
            yield next.value;
          }
        } finally {
          await iterator.return?.();
        }
      },
    },
  };
}
