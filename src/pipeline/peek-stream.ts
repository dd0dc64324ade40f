import { GatewayError } from '../errors/index.ts';
import type { WireFormat } from '../ir/types.ts';
import type { SseRecord } from '../sse/index.ts';
import { chunkSourceOf, type ChunkSource } from './chunk-source.ts';
import { mapUpstreamError } from './map-upstream-error.ts';
import { RecordReader } from './read-records.ts';

/** An upstream stream whose first record was read, ready to be relayed from the start. */
export interface PeekedStream {
  /** The rest of the body, paused where the peek stopped. */
  source: ChunkSource;
  /** The reader that cut what was read so far; the relay goes on with it. */
  reader: RecordReader;
  /** Whole records read so far (bytes as received) and their parsed records; a cut last record is `reader.end()`. */
  head: { bytes: Buffer; records: SseRecord[] };
  /** True when the upstream already ended. */
  ended: boolean;
  /** The whole body again as an iterable: the bytes already read, then the rest (tests, tools). */
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

function concat(parts: Buffer[]): Buffer {
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** Replays the chunks already read, then the rest of the source. */
function replay(read: Buffer[], source: ChunkSource, ended: boolean): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      yield* read;
      if (ended) return;
      const queue: Buffer[] = [];
      let done = false;
      let failure: { error: unknown } | undefined;
      let wake: (() => void) | undefined;
      const handler = {
        data: (chunk: Buffer) => {
          queue.push(chunk);
          source.pause();
          wake?.();
        },
        end: () => {
          done = true;
          wake?.();
        },
        error: (error: unknown) => {
          failure = { error };
          wake?.();
        },
      };
      try {
        for (;;) {
          if (queue.length > 0) {
            yield queue.shift()!;
            continue;
          }
          if (failure) throw failure.error;
          if (done) return;
          const waiting = new Promise<void>((resolve) => (wake = resolve));
          source.resume(handler);
          await waiting;
          wake = undefined;
        }
      } finally {
        if (!done) source.destroy();
      }
    },
  };
}

/**
 * Reads an upstream stream up to its first complete record, while nothing has reached the
 * client: an empty stream, a transport failure or an error record there (Anthropic sends
 * `overloaded_error` after a 200) throws a GatewayError the router can fall back on.
 */
export function peekStream(body: AsyncIterable<Uint8Array>, format: WireFormat, providerId: string): Promise<PeekedStream> {
  const source = chunkSourceOf(body);
  const reader = new RecordReader();
  const read: Buffer[] = [];
  const bytes: Buffer[] = [];
  const records: SseRecord[] = [];
  return new Promise<PeekedStream>((resolve, reject) => {
    let settled = false;
    const settle = (ended: boolean) => {
      if (settled) return;
      settled = true;
      const first = records[0] ?? (ended ? reader.end()[0] : undefined);
      if (!first) {
        source.destroy();
        reject(new GatewayError('provider_error', `The provider '${providerId}' returned an empty stream.`, { details: { provider: providerId } }));
        return;
      }
      const error = readError(first, format);
      if (error) {
        source.destroy();
        reject(mapUpstreamError(providerId, statusOfErrorType(error.type), { message: error.message, type: error.type }, {}));
        return;
      }
      const head = { bytes: concat(bytes), records };
      resolve({ source, reader, head, ended, body: replay(read, source, ended) });
    };
    source.resume({
      data(chunk) {
        read.push(chunk);
        const whole = reader.push(chunk);
        if (whole.length > 0) bytes.push(whole);
        for (const record of reader.records) records.push(record);
        if (records.length === 0) return;
        source.pause();
        settle(false);
      },
      end() {
        settle(true);
      },
      error(error) {
        if (settled) return;
        settled = true;
        source.destroy();
        reject(error);
      },
    });
  });
}
