// AWS's binary event-stream (`application/vnd.amazon.eventstream`): length-prefixed messages with
// typed headers and CRC32 checksums of the prelude and of the whole message. The codec is Smithy's
// (the AWS SDK's own); the Messages face's Bedrock framing and the bedrock plugin frame with it.
import { EventStreamCodec } from '@smithy/core/event-streams';

/** Smithy's event-stream message codec, its bodies and header strings UTF-8. */
export const eventStreamCodec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

/** Prelude (total length, headers length, prelude CRC) and the trailing message CRC, in bytes. */
export const EVENT_STREAM_PRELUDE = 12;
export const EVENT_STREAM_TRAILER = 4;
/** A message larger than this is no cloud's (Bedrock's chunks are a few kB): refused rather than buffered. */
export const EVENT_STREAM_MAX_MESSAGE = 16 * 1024 * 1024;
