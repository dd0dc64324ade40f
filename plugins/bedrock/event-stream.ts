// AWS event-stream framing (`application/vnd.amazon.eventstream`): length-prefixed binary
// messages with typed headers and CRC32 checksums of the prelude and of the whole message.
// The codec and the cut at message boundaries come from the plugin kit (Smithy's, the AWS SDK's own); this file reads Bedrock's messages.
import { eventStreamCodec as codec, splitEventStream, type EventStreamMessage } from 'gateway/plugin-kit';
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from 'gateway/plugin-kit';

/** One decoded message: its `:message-type`, `:event-type` or `:exception-type`, and its payload text. */
export interface EventMessage {
  messageType: 'event' | 'exception' | 'error';
  /** `:event-type` of an event, `:exception-type` of an exception, `:error-code` of an error. */
  name: string;
  payload: string;
}

/** What one push gives: the whole messages now complete, their bytes, and a corrupt frame met after them. */
export interface SplitResult {
  messages: EventMessage[];
  bytes: Buffer;
  error?: BadFrameError;
}

/** Past this a message's length is refused by the kit's splitter (so it is never waited for here). */
const MAX_MESSAGE = 16 * 1024 * 1024;
const NOTHING = Buffer.alloc(0);

/** Cuts event-stream bytes into whole messages at any split; after a corrupt frame nothing more is read. */
export class EventStreamSplitter {
  /** The bytes of the message still arriving, as they came: joined once, when it is whole (not at every chunk). */
  private pending: Buffer[] = [];
  private held = 0;
  /** Bytes the message still arriving needs before it can be read (its length, from its prelude; 0 while unknown). */
  private needed = 0;
  private broken = false;

  push(chunk: Uint8Array): SplitResult {
    if (this.broken) return { messages: [], bytes: NOTHING };
    this.pending.push(Buffer.from(chunk));
    this.held += chunk.byteLength;
    if (this.held < this.needed) return { messages: [], bytes: NOTHING };
    const bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.held);
    const split = splitEventStream(bytes);
    const messages = split.messages.map(readMessage);
    if (split.error !== undefined) return this.fail(messages, bytes.subarray(0, split.end), split.error);
    // A copy of the rest: a subarray would keep the whole chunk (a large message) alive behind it.
    const rest = Buffer.from(bytes.subarray(split.end));
    this.pending = rest.length > 0 ? [rest] : [];
    this.held = rest.length;
    const length = rest.length >= 4 ? rest.readUInt32BE(0) : 0;
    this.needed = length <= MAX_MESSAGE ? length : 0;
    return { messages, bytes: bytes.subarray(0, split.end) };
  }

  private fail(messages: EventMessage[], bytes: Buffer, reason: string): SplitResult {
    this.broken = true;
    this.pending = [];
    this.held = 0;
    return { messages, bytes, error: new BadFrameError(reason) };
  }
}

/** The upstream sent bytes that are not a valid event-stream message (bad checksum, absurd length). */
export class BadFrameError extends Error {
  constructor(reason: string) {
    super(`The upstream sent a corrupt event-stream frame: ${reason}`);
    this.name = 'BadFrameError';
  }
}

function header(message: EventStreamMessage, name: string): string | undefined {
  const value = message.headers[name];
  return value && value.type === 'string' ? value.value : undefined;
}

function readMessage(message: EventStreamMessage): EventMessage {
  const type = header(message, ':message-type') ?? 'event';
  const payload = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8');
  if (type === 'exception') return { messageType: 'exception', name: header(message, ':exception-type') ?? 'exception', payload };
  if (type === 'error') {
    const code = header(message, ':error-code') ?? 'error';
    return { messageType: 'error', name: code, payload: JSON.stringify({ message: header(message, ':error-message') ?? code }) };
  }
  return { messageType: 'event', name: header(message, ':event-type') ?? '', payload };
}

/** One message's bytes, as Bedrock frames them (content type JSON). */
export function encodeEventMessage(message: EventMessage): Uint8Array {
  const kind = message.messageType === 'exception' ? ':exception-type' : ':event-type';
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: message.messageType },
      [kind]: { type: 'string', value: message.name },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: new Uint8Array(Buffer.from(message.payload, 'utf8')),
  });
}

/** The record of an exception message: its name (`throttlingException`) in `event`, as the Converse codec reads it. */
export const EXCEPTION_EVENT_PREFIX = 'exception:';

/** A corrupt frame as a record: an exception the codecs report as the upstream's failure. */
export const BAD_FRAME_EVENT = `${EXCEPTION_EVENT_PREFIX}badFrameException`;

class EventStreamReader implements FrameReader {
  records: WireRecord[] = [];
  private readonly splitter = new EventStreamSplitter();

  push(chunk: Uint8Array): Buffer {
    const { messages, bytes, error } = this.splitter.push(chunk);
    const records: WireRecord[] = messages.map((m) => ({ event: m.messageType === 'event' ? m.name : `${EXCEPTION_EVENT_PREFIX}${m.name}`, data: m.payload }));
    if (error) records.push({ event: BAD_FRAME_EVENT, data: JSON.stringify({ message: error.message }) });
    this.records = records;
    return bytes;
  }

  end(): WireRecord[] {
    return []; // a cut message cannot be read: the relay then says the stream ended early
  }
}

const WRITER: FrameWriter = {
  write: (records) => Buffer.concat(records.map((r) => encodeEventMessage(recordMessage(r)))),
  passed() {},
  end: () => Buffer.alloc(0),
};

function recordMessage(record: WireRecord): EventMessage {
  const event = record.event ?? '';
  if (event.startsWith(EXCEPTION_EVENT_PREFIX)) return { messageType: 'exception', name: event.slice(EXCEPTION_EVENT_PREFIX.length), payload: record.data };
  return { messageType: 'event', name: event, payload: record.data };
}

/** Bedrock's binary event-stream as a format's framing: one record per message, `event` its type. */
export const eventStreamFraming: StreamFraming = {
  contentType: 'application/vnd.amazon.eventstream',
  createReader: () => new EventStreamReader(),
  createWriter: () => WRITER,
};
