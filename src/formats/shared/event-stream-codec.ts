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
export const EVENT_STREAM_PRELUDE = 12;
export const EVENT_STREAM_TRAILER = 4;
/** A message larger than this is no cloud's (Bedrock's chunks are a few kB): refused rather than buffered. */
export const EVENT_STREAM_MAX_MESSAGE = 16 * 1024 * 1024;
