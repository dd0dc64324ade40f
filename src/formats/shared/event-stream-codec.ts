// AWS's binary event-stream (`application/vnd.amazon.eventstream`): length-prefixed messages with
// typed headers and CRC32 checksums of the prelude and of the whole message. The codec is Smithy's
// (the AWS SDK's own); the Messages face's Bedrock framing and the bedrock plugin frame with it.
import type { EventStreamCodec } from '@smithy/core/event-streams';
import { loadOnUse } from '../../util/index.ts';

const eventStreams = loadOnUse<typeof import('@smithy/core/event-streams')>('@smithy/core/event-streams');
let codec: EventStreamCodec | undefined;
const smithyCodec = (): EventStreamCodec =>
  (codec ??= new (eventStreams().EventStreamCodec)(
    (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    (text) => new Uint8Array(Buffer.from(text, 'utf8')),
  ));

/**
 * Smithy's event-stream message codec, its bodies and header strings UTF-8. Smithy is read on the
 * first call, not when the formats load: every process (each CLI command, a server with no
 * Bedrock traffic) loads this module, few frame an event stream.
 */
export const eventStreamCodec: Pick<EventStreamCodec, keyof EventStreamCodec> = {
  feed: (message) => smithyCodec().feed(message),
  endOfStream: () => smithyCodec().endOfStream(),
  getMessage: () => smithyCodec().getMessage(),
  getAvailableMessages: () => smithyCodec().getAvailableMessages(),
  encode: (message) => smithyCodec().encode(message),
  decode: (message) => smithyCodec().decode(message),
  formatHeaders: (headers) => smithyCodec().formatHeaders(headers),
};

/** Prelude (total length, headers length, prelude CRC) and the trailing message CRC, in bytes. */
const PRELUDE = 12;
const TRAILER = 4;
/** A message larger than this is no cloud's (Bedrock's chunks are a few kB): refused rather than buffered. */
const MAX_MESSAGE = 16 * 1024 * 1024;

/** One decoded event-stream message: its headers and its body. */
export type EventStreamMessage = ReturnType<EventStreamCodec['decode']>;

/**
 * The whole messages at the start of `bytes`, decoded, and where they end (`end`: the rest is a
 * message still arriving). `error` says why the frame at `end` cannot be read (an absurd length,
 * a checksum that fails): nothing after it can be.
 */
export function splitEventStream(bytes: Buffer): { messages: EventStreamMessage[]; end: number; error?: string } {
  const messages: EventStreamMessage[] = [];
  let at = 0;
  while (bytes.length - at >= PRELUDE) {
    const total = bytes.readUInt32BE(at);
    if (total < PRELUDE + TRAILER || total > MAX_MESSAGE) return { messages, end: at, error: `an event-stream message claims ${total} bytes` };
    if (bytes.length - at < total) break;
    try {
      messages.push(eventStreamCodec.decode(bytes.subarray(at, at + total)));
    } catch (error) {
      return { messages, end: at, error: (error as Error).message };
    }
    at += total;
  }
  return { messages, end: at };
}
