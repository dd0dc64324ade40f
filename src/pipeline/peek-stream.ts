import { GatewayError } from '../errors/index.ts';
import type { WireFormat } from '../ir/index.ts';
import { framingOf, getFormat, type FrameReader, type WireRecord as SseRecord } from '../formats/index.ts';
import { chunkSourceOf, upstreamError, type ChunkHandler, type ChunkSource } from '../upstream/index.ts';

/** An upstream stream whose first record was read, ready to be relayed from the start. */
export interface PeekedStream {
  /** The rest of the body, paused where the peek stopped. */
  source: ChunkSource;
  /** The reader that cut what was read so far; the relay goes on with it. */
  reader: FrameReader;
  /** Whole records read so far (bytes as received) and their parsed records; a cut last record is `reader.end()`. */
  head: { bytes: Buffer; records: SseRecord[] };
  /** True when the upstream already ended. */
  ended: boolean;
  /** The whole body again as an iterable: the bytes already read, then the rest (tests, tools). */
  body: AsyncIterable<Uint8Array>;
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

class Peeked implements PeekedStream {
  constructor(
    readonly source: ChunkSource,
    readonly reader: FrameReader,
    readonly head: { bytes: Buffer; records: SseRecord[] },
    readonly ended: boolean,
    private readonly read: Buffer[],
  ) {}

  get body(): AsyncIterable<Uint8Array> {
    return replay(this.read, this.source, this.ended);
  }
}

/** Reads chunks until the first whole record, then settles once (a class: no closures per request). */
class Peek implements ChunkHandler {
  private readonly reader: FrameReader;
  private readonly read: Buffer[] = [];
  private readonly bytes: Buffer[] = [];
  private readonly records: SseRecord[] = [];
  private settled = false;

  constructor(
    private readonly source: ChunkSource,
    private readonly format: WireFormat,
    private readonly providerId: string,
    framing: string | undefined,
    private readonly resolve: (peeked: PeekedStream) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.reader = framingOf(getFormat(format), framing).createReader();
  }

  data(chunk: Buffer): void {
    this.read.push(chunk);
    const whole = this.reader.push(chunk);
    if (whole.length > 0) this.bytes.push(whole);
    for (const record of this.reader.records) this.records.push(record);
    if (this.records.length === 0) return;
    this.source.pause();
    this.settle(false);
  }

  end(): void {
    this.settle(true);
  }

  error(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.source.destroy();
    this.reject(error);
  }

  private settle(ended: boolean): void {
    if (this.settled) return;
    this.settled = true;
    const { source, reader, providerId } = this;
    const first = this.records[0] ?? (ended ? reader.end()[0] : undefined);
    if (!first) {
      source.destroy();
      this.reject(new GatewayError('provider_error', `The provider '${providerId}' returned an empty stream.`, { details: { provider: providerId } }));
      return;
    }
    const said = getFormat(this.format).codec.decodeStreamError(first);
    if (said) {
      source.destroy();
      this.reject(upstreamError(providerId, { ...said, phase: 'first-record' }));
      return;
    }
    const head = { bytes: concat(this.bytes), records: this.records };
    this.resolve(new Peeked(source, reader, head, ended, this.read));
  }
}

/**
 * Reads an upstream stream up to its first complete record, while nothing has reached the
 * client: an empty stream, a transport failure or an error record there (Anthropic sends
 * `overloaded_error` after a 200) throws a GatewayError the router can fall back on.
 */
export function peekStream(body: AsyncIterable<Uint8Array>, format: WireFormat, providerId: string, framing?: string): Promise<PeekedStream> {
  const source = chunkSourceOf(body);
  return new Promise<PeekedStream>((resolve, reject) => source.resume(new Peek(source, format, providerId, framing, resolve, reject)));
}
