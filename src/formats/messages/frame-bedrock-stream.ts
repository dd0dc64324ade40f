// Bedrock's InvokeModelWithResponseStream answer: AWS's binary event-stream, each message a
// `chunk` event whose JSON payload carries one Messages stream event, base64, in `bytes`.
import { eventStreamCodec as codec, isHttpStatus, splitEventStream, type EventStreamMessage } from '../shared/index.ts';
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from '../types.ts';

const CHUNK_HEADERS = {
  ':event-type': { type: 'string', value: 'chunk' },
  ':content-type': { type: 'string', value: 'application/json' },
  ':message-type': { type: 'string', value: 'event' },
} as const;

/** Anthropic's error types that are the client's fault: Bedrock's stream has one exception for them all. */
const CLIENT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'request_too_large', 'billing_error']);

/** The upstream's status an error names (`details.upstream_status`), when it is an HTTP status. */
function upstreamStatusOf(error: { details?: unknown } | undefined): number | undefined {
  const status = (error?.details as { upstream_status?: unknown } | undefined)?.upstream_status;
  return isHttpStatus(status) ? status : undefined;
}

/**
 * Bedrock's exception for an Anthropic error event: one of the six InvokeModelWithResponseStream's
 * event union names beside `chunk`, since an AWS SDK raises any other name as a bare Error. A broken
 * connection to the provider (the gateway's `provider_error`) is the model's stream failing, and so is
 * an error that names the upstream's status (a Bedrock InvokeModel upstream's own modelStreamErrorException, passed through).
 */
function exceptionOf(error: { type?: unknown; code?: unknown; details?: unknown } | undefined): string {
  const type = error?.type;
  if (type === 'rate_limit_error') return 'throttlingException';
  if (type === 'overloaded_error') return 'serviceUnavailableException';
  if (type === 'timeout_error') return 'modelTimeoutException';
  if (typeof type === 'string' && CLIENT_ERROR_TYPES.has(type)) return 'validationException';
  return error?.code === 'provider_error' || upstreamStatusOf(error) !== undefined ? 'modelStreamErrorException' : 'internalServerException';
}

/**
 * What Bedrock's modelStreamErrorException says beside its message (the AWS SDK's class has both): the
 * upstream's status and message, when the gateway knows the status (`details.upstream_status`); a cut
 * connection has none, and neither does any other exception.
 */
function originalOf(exception: string, error: { details?: unknown } | undefined, text: string): string {
  const status = exception === 'modelStreamErrorException' ? upstreamStatusOf(error) : undefined;
  return status !== undefined ? `,"originalStatusCode":${status},"originalMessage":${JSON.stringify(text)}` : '';
}

function readJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function message(headers: Record<string, { type: 'string'; value: string }>, payload: string): Buffer {
  const bytes = codec.encode({ headers, body: new Uint8Array(Buffer.from(payload, 'utf8')) });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * One record as Bedrock frames it: a `chunk` event, the record's JSON in `bytes`; Anthropic's
 * `error` event as the exception Bedrock sends when a stream fails (its `message` what AWS SDKs
 * read, modelStreamErrorException's `originalStatusCode` and `originalMessage` where known; the
 * whole error event beside it, in `error_event`).
 */
export function encodeBedrockRecord(record: WireRecord): Buffer {
  if (record.event === 'error') {
    const event = readJson(record.data) as { error?: { type?: unknown; code?: unknown; message?: unknown; details?: unknown } } | undefined;
    const text = typeof event?.error?.message === 'string' ? event.error.message : 'The stream failed.';
    const exception = exceptionOf(event?.error);
    const headers = { ':exception-type': { type: 'string', value: exception }, ':content-type': CHUNK_HEADERS[':content-type'], ':message-type': { type: 'string', value: 'exception' } } as const;
    return message(headers, `{"message":${JSON.stringify(text)}${originalOf(exception, event?.error, text)},"error_event":${event ? record.data : 'null'}}`);
  }
  return message(CHUNK_HEADERS, `{"bytes":"${Buffer.from(record.data, 'utf8').toString('base64')}"}`);
}

const WRITER: FrameWriter = {
  write: (records) => (records.length === 1 ? encodeBedrockRecord(records[0]) : Buffer.concat(records.map(encodeBedrockRecord))),
  passed() {},
  end: () => Buffer.alloc(0),
};

/** The Messages event of one chunk message (its `type` as the record's event), the error event of an exception; undefined for any other message. */
function recordOf(message: EventStreamMessage): WireRecord | undefined {
  const text = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8');
  if (message.headers[':message-type']?.value === 'exception') {
    const exception = JSON.parse(text) as { message?: unknown; error_event?: unknown };
    const event = exception.error_event ?? { type: 'error', error: { type: 'api_error', message: String(exception.message ?? message.headers[':exception-type']?.value) } };
    return { event: 'error', data: JSON.stringify(event) };
  }
  if (message.headers[':event-type']?.value !== 'chunk') return undefined;
  const payload = JSON.parse(text) as { bytes?: unknown };
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
    const { messages, end, error } = splitEventStream(bytes);
    if (error !== undefined) throw new Error(error);
    const records: WireRecord[] = [];
    for (const message of messages) {
      const record = recordOf(message);
      if (record) records.push(record);
    }
    this.pending = bytes.subarray(end);
    this.records = records;
    return bytes.subarray(0, end);
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
