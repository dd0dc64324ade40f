// Bedrock's HTTP errors are `{"message": "..."}` with the kind in the `x-amzn-ErrorType` header.
// The host reads error bodies with the call format's decoder and no headers, so the kind is
// moved into the body in that format's own spelling; the status is kept, and the host's codes follow from it.
import { readJsonBody, type UpstreamResponse, type WireFormat } from 'gateway/plugin-kit';
import { bedrockErrorKind, bedrockErrorName } from './converse/map-error.ts';

function headerOf(headers: UpstreamResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The error response with its body in the call format's shape (Messages for Invoke, Bedrock's own for Converse). */
export async function mapErrorResponse(response: UpstreamResponse, format: WireFormat): Promise<UpstreamResponse> {
  const body = await readJsonBody(response.body);
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const message = typeof b.message === 'string' ? b.message : typeof b.Message === 'string' ? b.Message : typeof body === 'string' && body ? body.slice(0, 1000) : `Bedrock answered HTTP ${response.status}.`;
  const rawType = headerOf(response.headers, 'x-amzn-errortype') ?? (typeof b.__type === 'string' ? b.__type : undefined);
  const name = rawType ? bedrockErrorName(rawType) : undefined;
  const mapped =
    format === 'messages'
      ? { type: 'error', error: { type: (name && bedrockErrorKind(name)) ?? 'api_error', message } }
      : { message, ...(name ? { __type: name } : {}) };
  const bytes = Buffer.from(JSON.stringify(mapped));
  return { status: response.status, headers: { ...response.headers, 'content-type': 'application/json', 'content-length': String(bytes.length) }, body: (async function* () { yield bytes; })() };
}
