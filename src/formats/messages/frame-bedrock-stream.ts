// Bedrock's InvokeModelWithResponseStream answer: AWS's binary event-stream, each message a
// `chunk` event whose JSON payload carries one Messages stream event, base64, in `bytes`.
import { EVENT_STREAM_MAX_MESSAGE, EVENT_STREAM_PRELUDE, EVENT_STREAM_TRAILER, eventStreamCodec as codec } from '../shared/index.ts';
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from '../types.ts';

const CHUNK_HEADERS = {
  ':event-type': { type: 'string', value: 'chunk' },
  ':content-type': { type: 'string', value: 'application/json' },
  ':message-type': { type: 'string', value: 'event' },
} as const;

/** One record as Bedrock frames it: a `chunk` event, the record's JSON in `bytes` (an error record too, as Bedrock relays Anthropic's). */
export function encodeBedrockChunk(record: WireRecord): Buffer {
  const payload = `{"bytes":"${Buffer.from(record.data, 'utf8').toString('base64')}"}`;
  const bytes = codec.encode({ headers: CHUNK_HEADERS, body: new Uint8Array(Buffer.from(payload, 'utf8')) });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const WRITER: FrameWriter = {
  write: (records) => (records.length === 1 ? encodeBedrockChunk(records[0]) : Buffer.concat(records.map(encodeBedrockChunk))),
  passed() {},
  end: () => Buffer.alloc(0),
};

/** The Messages event of one chunk message (its `type` as the record's event); undefined for a message that is none. */
function recordOf(message: ReturnType<typeof codec.decode>): WireRecord | undefined {
  const type = message.headers[':event-type'];
  if (!type || type.value !== 'chunk') return undefined;
  const payload = JSON.parse(Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8')) as { bytes?: unknown };
  if (typeof payload.bytes !== 'string') return undefined;
  const data = Buffer.from(payload.bytes, 'base64').toString('utf8');
  const event = /^\{\s*"type"\s*:\s*"([a-z_]+)"/.exec(data)?.[1];
  return event === undefined ? { data } : { event, data };
}

/** Cuts the bytes at message boundaries, whatever the split (the format-conformance cases and the unit tests read what the writer wrote). */
class BedrockStreamReader implements FrameReader {
  records: WireRecord[] = [];
  private pending = Buffer.alloc(0);

  push(chunk: Uint8Array): Buffer {
    const bytes = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const records: WireRecord[] = [];
    let at = 0;
    while (bytes.length - at >= EVENT_STREAM_PRELUDE) {
      const total = bytes.readUInt32BE(at);
      if (total < EVENT_STREAM_PRELUDE + EVENT_STREAM_TRAILER || total > EVENT_STREAM_MAX_MESSAGE) throw new Error(`an event-stream message claims ${total} bytes`);
      if (bytes.length - at < total) break;
      const record = recordOf(codec.decode(bytes.subarray(at, at + total)));
      if (record) records.push(record);
      at += total;
    }
    this.pending = bytes.subarray(at);
    this.records = records;
    return bytes.subarray(0, at);
  }

  end(): WireRecord[] {
    return []; // a cut message cannot be read
  }
}

/**
 * The framing a Bedrock client's stream is written in. Only clients get it (`clientOnly`): a
 * Messages upstream answers in SSE, so a passthrough's records are framed again.
 */
export const bedrockStreamFraming: StreamFraming = {
  contentType: 'application/vnd.amazon.eventstream',
  clientOnly: true,
  createReader: () => new BedrockStreamReader(),
  createWriter: () => WRITER,
};
