import { describe, expect, it } from 'vitest';
import { GatewayError, validationError } from '../../../src/errors/index.ts';
import { formatSse, parseSse } from '../../../src/sse/index.ts';
import { encodeResponsesStreamError, responsesCodec } from '../../../src/formats/responses/index.ts';
import { readJsonFixture } from './helpers.ts';

const ids = { requestId: 'req_1', correlationId: 'cor_1' };

describe('responses errors', () => {
  it('decodes OpenAI error bodies, text bodies and empty bodies', () => {
    expect(responsesCodec.decodeError(400, readJsonFixture('error-body.json'))).toEqual({
      message: "Invalid 'input[1].call_id': expected a call_id.",
      type: 'invalid_request_error',
      code: 'invalid_value',
      // The field it refused: the client's error.param.
      param: 'input[1].call_id',
    });
    expect(responsesCodec.decodeError(502, 'Bad gateway')).toEqual({ message: 'Bad gateway' });
    expect(responsesCodec.decodeError(500, '{"error":{"message":"boom","type":"server_error","code":null}}')).toEqual({ message: 'boom', type: 'server_error' });
    expect(responsesCodec.decodeError(503, undefined)).toEqual({ message: 'The upstream returned HTTP 503.' });
  });

  it('encodes the spec envelope plus OpenAI type and param', () => {
    const body = responsesCodec.encodeError(validationError({ 'input[2].call_id': 'must be a string' }), ids);
    expect(body).toMatchObject({
      error: {
        code: 'validation_error',
        message: "Invalid parameter 'input[2].call_id': must be a string",
        request_id: 'req_1',
        details: { fields: { 'input[2].call_id': 'must be a string' } },
        type: 'invalid_request_error',
        param: 'input[2].call_id',
      },
      correlation_id: 'cor_1',
    });
    expect(typeof body.timestamp).toBe('number');
    const limited = responsesCodec.encodeError(new GatewayError('rate_limit_exceeded', 'slow', { retryAfter: 3 }), ids);
    expect(limited.error).toMatchObject({ type: 'rate_limit_error', param: null, retry_after: 3 });
    expect((responsesCodec.encodeError(new GatewayError('invalid_api_key', 'no'), ids).error as { type: string }).type).toBe('authentication_error');
    expect((responsesCodec.encodeError(new GatewayError('provider_error', 'x'), ids).error as { type: string }).type).toBe('api_error');
  });

  it('says what the Chat routes say: an unknown model is invalid_request_error (as OpenAI answers), a missing field is the param', () => {
    const unknown = responsesCodec.encodeError(new GatewayError('model_not_found', "The model 'x' does not exist."), ids);
    expect(unknown.error).toMatchObject({ code: 'model_not_found', type: 'invalid_request_error' });
    const missing = responsesCodec.encodeError(validationError({ model: 'is required' }), ids);
    expect(missing.error).toMatchObject({ code: 'bad_request', type: 'invalid_request_error', param: 'model' });
    const streamed = parseSse(formatSse(responsesCodec.encodeStreamError(new GatewayError('model_not_found', 'gone'), ids)));
    expect(JSON.parse(streamed[0].data)).toMatchObject({ code: 'model_not_found', error: { type: 'invalid_request_error' } });
  });

  it('encodes a stream error as event: error with the given sequence number', () => {
    const text = formatSse(encodeResponsesStreamError(new GatewayError('provider_timeout', 'too slow'), ids, 12));
    const [record] = parseSse(text);
    expect(record.event).toBe('error');
    expect(JSON.parse(record.data)).toEqual({
      type: 'error',
      sequence_number: 12,
      code: 'provider_timeout',
      message: 'too slow',
      param: null,
      error: { type: 'api_error', code: 'provider_timeout', message: 'too slow', param: null, request_id: 'req_1' },
    });
  });

  it('the codec numbers the error of a passthrough one past the last record its tap saw', () => {
    const tap = responsesCodec.createUsageTap();
    for (const record of parseSse('event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\nevent: response.in_progress\ndata: {"type":"response.in_progress","sequence_number":1}\n\n')) tap.push(record);
    const [record] = parseSse(formatSse(responsesCodec.encodeStreamError(new GatewayError('provider_error', 'cut'), ids, tap)));
    expect(JSON.parse(record.data)).toMatchObject({ type: 'error', sequence_number: 2 });
  });
});
