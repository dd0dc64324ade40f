// InvokeModelWithResponseStream for Claude: event-stream messages whose `chunk` payload is
// `{"bytes": base64(<one Messages stream event JSON>)}`. Re-framed as the Messages SSE the host
// reads for a Messages upstream: the event JSON goes through byte for byte (thinking signatures,
// tool input), only the framing changes. No format conversion happens here.
import { EventStreamSplitter, type EventMessage } from './event-stream.ts';

/** Bedrock exception names → the Anthropic error type a Messages client and the host read. */
const ERROR_TYPE: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  modelTimeoutException: 'timeout_error',
  validationException: 'invalid_request_error',
  accessDeniedException: 'permission_error',
  resourceNotFoundException: 'not_found_error',
  modelStreamErrorException: 'api_error',
  internalServerException: 'api_error',
  badFrameException: 'api_error',
};

/** An integer HTTP status (ModelStreamErrorException's `originalStatusCode`), else undefined. */
function httpStatus(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599 ? (value as number) : undefined;
}

/**
 * The Messages error event of an exception. A ModelStreamErrorException's `originalStatusCode` (the model's status)
 * goes in `details.upstream_status`, where the gateway's own error envelope has it: read into the IR's stream error,
 * and an AWS SDK client's ModelStreamErrorException names it again.
 */
function sseError(name: string, payload: string): string {
  let message = name;
  let status: number | undefined;
  try {
    const parsed = JSON.parse(payload) as { message?: unknown; Message?: unknown; originalStatusCode?: unknown };
    message = String(parsed.message ?? parsed.Message ?? name);
    status = httpStatus(parsed.originalStatusCode);
  } catch {
    // not JSON: the name says enough
  }
  const type = ERROR_TYPE[name[0].toLowerCase() + name.slice(1)] ?? 'api_error';
  const error = status === undefined ? { type, message } : { type, message, details: { upstream_status: status } };
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`;
}

/** The `type` of a Messages event without parsing the whole (possibly large) JSON. */
function eventTypeOf(json: string): string | undefined {
  return /"type"\s*:\s*"([a-z_]+)"/.exec(json)?.[1];
}

function toSse(message: EventMessage): string {
  if (message.messageType !== 'event') return sseError(message.name, message.payload);
  if (message.name !== 'chunk') return ''; // no other event types are documented; nothing to relay
  const bytes = (JSON.parse(message.payload) as { bytes?: unknown }).bytes;
  if (typeof bytes !== 'string') return '';
  const json = Buffer.from(bytes, 'base64').toString('utf8');
  const type = eventTypeOf(json);
  return type ? `event: ${type}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

/** Event-stream bytes in → Messages SSE bytes out, whatever the splits; a corrupt frame ends it with an `error` event. */
export async function* unwrapInvokeStream(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const splitter = new EventStreamSplitter();
  for await (const chunk of body) {
    const { messages, error } = splitter.push(chunk);
    const text = messages.map(toSse).join('') + (error ? sseError('badFrameException', JSON.stringify({ message: error.message })) : '');
    if (text) yield Buffer.from(text);
    if (error) return;
  }
}
