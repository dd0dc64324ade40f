// Bedrock's errors: HTTP `{"message": "..."}` with the kind in `x-amzn-ErrorType` (the plugin
// copies it into the body as `__type`, as AWS's JSON protocols do), and stream exceptions whose
// `:exception-type` the framing puts in the record's event as `exception:<name>`.
import { awsExceptionOf, buildErrorEnvelope, type DecodedUpstreamError, type GatewayError, type RequestIds, type StreamError, type WireRecord } from 'gateway/plugin-kit';
import { recordOf, parseJson, stringOf } from './json.ts';

const EXCEPTION = 'exception:';

/** Bedrock error names → the error kinds the host classifies (its OpenAI/Anthropic spellings). */
const KIND: Record<string, string> = {
  ThrottlingException: 'rate_limit_error',
  ServiceQuotaExceededException: 'rate_limit_error',
  ModelNotReadyException: 'overloaded_error',
  ServiceUnavailableException: 'overloaded_error',
  ModelTimeoutException: 'timeout_error',
  ValidationException: 'invalid_request_error',
  AccessDeniedException: 'permission_error',
  UnrecognizedClientException: 'authentication_error',
  InvalidSignatureException: 'authentication_error',
  ResourceNotFoundException: 'not_found_error',
  ModelErrorException: 'api_error',
  ModelStreamErrorException: 'api_error',
  InternalServerException: 'api_error',
  BadFrameException: 'api_error',
};

/** Stream errors by kind: the code and status a converting client sees. */
const STREAM_ERROR: Record<string, { code: string; status: number }> = {
  rate_limit_error: { code: 'rate_limit_exceeded', status: 429 },
  overloaded_error: { code: 'provider_unavailable', status: 503 },
  timeout_error: { code: 'provider_timeout', status: 504 },
  invalid_request_error: { code: 'bad_request', status: 400 },
  not_found_error: { code: 'model_not_found', status: 404 },
};

/** `throttlingException` / `ThrottlingException` / `…ThrottlingException:http://…` → `ThrottlingException`. */
export function bedrockErrorName(raw: string): string {
  const name = raw.split(':')[0].split('#').pop() ?? raw;
  return name ? name[0].toUpperCase() + name.slice(1) : name;
}

/** The error kind the host classifies, for a Bedrock error name. */
export function bedrockErrorKind(raw: string): string | undefined {
  return KIND[bedrockErrorName(raw)];
}

function messageOf(body: unknown, fallback: string): string {
  const b = recordOf(body);
  return stringOf(b.message) ?? stringOf(b.Message) ?? (typeof body === 'string' && body.trim() ? body.trim().slice(0, 1000) : fallback);
}

export function decodeConverseError(status: number, body: unknown): DecodedUpstreamError {
  const name = stringOf(recordOf(body).__type);
  const kind = name ? bedrockErrorKind(name) : undefined;
  return { message: messageOf(body, `Bedrock answered HTTP ${status}.`), ...(kind ? { type: kind } : {}) };
}

export function decodeConverseStreamError(record: WireRecord): DecodedUpstreamError | undefined {
  if (!record.event?.startsWith(EXCEPTION)) return undefined;
  const name = record.event.slice(EXCEPTION.length);
  const kind = bedrockErrorKind(name);
  return { message: messageOf(parseJson(record.data), name), ...(kind ? { type: kind } : {}) };
}

/** A status an exception names (`originalStatusCode`): an HTTP status, else undefined. */
function statusOf(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599 ? (value as number) : undefined;
}

/** The IR stream error of an exception record; a ModelStreamErrorException's `originalStatusCode` is the upstream's status. */
export function streamErrorOf(record: WireRecord): StreamError {
  const decoded = decodeConverseStreamError(record) ?? { message: 'Bedrock reported an error.' };
  const known = decoded.type ? STREAM_ERROR[decoded.type] : undefined;
  const error: StreamError = { code: known?.code ?? 'provider_error', status: known?.status ?? 502, message: decoded.message };
  const status = statusOf(recordOf(parseJson(record.data)).originalStatusCode);
  if (status !== undefined) error.upstreamStatus = status;
  return error;
}

/** What picks a stream's exception: the error's status and the gateway's code. */
type StreamFault = { status: number; code?: string };

/**
 * The exception a ConverseStream ends in: one of the five its event union names, since the AWS
 * SDKs raise any other as a bare error named in lower camel case whose message is the payload's
 * JSON. A timeout part-way and a broken connection to the provider (the gateway's `provider_error`,
 * as InvokeModelWithResponseStream ends it) are the stream's error; other client faults are the request's.
 */
function streamExceptionOf({ status, code }: StreamFault): string {
  if (status === 429) return 'ThrottlingException';
  if (status === 503) return 'ServiceUnavailableException';
  if (status === 504 || status === 408 || code === 'provider_error') return 'ModelStreamErrorException';
  return status >= 500 ? 'InternalServerException' : 'ValidationException';
}

/**
 * The exception record of a stream error (its event is the exception's name, lower camel case, as Bedrock frames it).
 * A ModelStreamErrorException carries the upstream's status and message too (`originalStatusCode`, `originalMessage`,
 * as the AWS SDK's class reads them), when the gateway knows the status; no other exception has them.
 */
export function exceptionRecord(fault: StreamFault, payload: { message: string } & Record<string, unknown>, upstreamStatus?: unknown): WireRecord {
  const name = streamExceptionOf(fault);
  const status = name === 'ModelStreamErrorException' ? statusOf(upstreamStatus) : undefined;
  const original = status === undefined ? {} : { originalStatusCode: status, originalMessage: payload.message };
  return { event: `${EXCEPTION}${name[0].toLowerCase()}${name.slice(1)}`, data: JSON.stringify({ ...payload, ...original }) };
}

/** The spec envelope plus Bedrock's own `message` and `__type`. */
export function encodeConverseError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  return { ...buildErrorEnvelope(error, ids), message: error.message, __type: awsExceptionOf(error.status) };
}

/** A mid-stream error as Bedrock sends it: an exception message (with the upstream's status where known, see exceptionRecord). */
export function encodeConverseStreamError(error: GatewayError, ids: RequestIds): WireRecord {
  return exceptionRecord(error, { ...buildErrorEnvelope(error, ids), message: error.message }, error.details?.upstream_status);
}
