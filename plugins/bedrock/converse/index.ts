// The `bedrock-converse` wire format: Amazon Bedrock's Converse API, brought by the bedrock
// plugin (`wireFormats`). Model and stream flag are in the path; streams are AWS event-stream
// frames. Inbound too: a Bedrock SDK pointed at the gateway with a Bedrock API key (Bearer).
import { defineFormat, type FormatCodec, type RecordEnd, type WireRecord } from 'gateway/plugin-kit';
import { eventStreamFraming } from '../event-stream.ts';
import { decodeConverseRequest } from './decode-request.ts';
import { encodeConverseRequest } from './encode-request.ts';
import { decodeConverseResponse, encodeConverseResponse } from './map-response.ts';
import { createConverseStreamDecoder } from './decode-stream.ts';
import { createConverseStreamEncoder } from './encode-stream.ts';
import { decodeConverseError, decodeConverseStreamError, encodeConverseError, encodeConverseStreamError } from './map-error.ts';
import { createConverseUsageTap, readConversePassthroughResponse } from './read-passthrough.ts';

export const converseCodec: FormatCodec = {
  format: 'bedrock-converse',
  decodeRequest: decodeConverseRequest,
  encodeRequest: encodeConverseRequest,
  decodeResponse: decodeConverseResponse,
  encodeResponse: encodeConverseResponse,
  createStreamDecoder: createConverseStreamDecoder,
  createStreamEncoder: createConverseStreamEncoder,
  decodeError: decodeConverseError,
  decodeStreamError: decodeConverseStreamError,
  encodeError: encodeConverseError,
  encodeStreamError: encodeConverseStreamError,
  // Bedrock SDKs fail on event types they do not know: routing stays in the X-Gateway-* headers.
  insertRoutingEvents: (records) => [...records],
  readPassthroughResponse: readConversePassthroughResponse,
  createUsageTap: createConverseUsageTap,
};

function tellRecordEnd(record: WireRecord): RecordEnd | undefined {
  if (record.event === 'metadata' || record.event?.startsWith('exception:')) return 'complete';
  return record.event === 'messageStop' ? 'finished' : undefined;
}

const PREFIX = '/model/';

export const converseFormat = defineFormat({
  id: 'bedrock-converse',
  title: 'Amazon Bedrock Converse',
  routes: [
    {
      method: 'POST',
      path: '/model/**',
      from: 'path',
      // `/model/{modelId}/converse` or `/converse-stream`; the id is percent-encoded (`…-v1%3A0`) and may hold a slash (provider/model).
      readPath(pathname) {
        if (!pathname.startsWith(PREFIX)) return undefined;
        const rest = pathname.slice(PREFIX.length);
        const slash = rest.lastIndexOf('/');
        const action = rest.slice(slash + 1);
        if (slash <= 0 || (action !== 'converse' && action !== 'converse-stream')) return undefined;
        let model: string;
        try {
          model = decodeURIComponent(rest.slice(0, slash));
        } catch {
          return undefined;
        }
        return model ? { model, stream: action === 'converse-stream' } : undefined;
      },
    },
  ],
  // An AWS SDK signing with the gateway key as its access key id (docs/formats.md: the signature is not checked).
  credentials: [{ header: 'authorization', sigv4: true }],
  // The AWS SDKs read the request id into `$metadata.requestId` from this header.
  requestIdHeader: 'x-amzn-requestid',
  framing: eventStreamFraming,
  codec: converseCodec,
  terminal: tellRecordEnd,
  passthrough: {},
  // ToolSpecification.name: `[a-zA-Z0-9_-]+`, at most 64 characters.
  fit: { toolName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 } },
  stopField: 'inferenceConfig.stopSequences',
});
