import { describe, expect, it } from 'vitest';
import { GatewayError, validationError } from '../../../src/errors/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { parseEvents, readJsonFixture } from '../stream-helpers.ts';
import { formatSse } from '../../../src/sse/index.ts';

const ids = { requestId: 'req_1', correlationId: 'cor_1' };

describe('messages errors', () => {
  it('decodes an Anthropic error body', () => {
    expect(messagesCodec.decodeError(529, readJsonFixture('messages/error-overloaded.json'))).toEqual({ message: 'Overloaded', type: 'overloaded_error' });
  });

  it('encodes the spec envelope plus type:"error", the Anthropic error.type and request_id', () => {
    const body = messagesCodec.encodeError(validationError({ max_tokens: 'must be >= 0' }), ids);
    expect(body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'validation_error', request_id: 'req_1', details: { fields: { max_tokens: 'must be >= 0' } } },
      request_id: 'req_1',
      correlation_id: 'cor_1',
    });
    expect(typeof body.timestamp).toBe('number');
  });

  it.each([
    ['bad_request', 'invalid_request_error'],
    ['invalid_api_key', 'authentication_error'],
    ['insufficient_balance', 'billing_error'],
    ['model_tier_restricted', 'permission_error'],
    ['model_not_found', 'not_found_error'],
    ['payload_too_large', 'request_too_large'],
    ['rate_limit_exceeded', 'rate_limit_error'],
    ['internal_error', 'api_error'],
    ['provider_error', 'api_error'],
    ['provider_unavailable', 'overloaded_error'],
    ['provider_timeout', 'timeout_error'],
    ['conflict', 'invalid_request_error'],
  ] as const)('%s → error.type %s', (code, type) => {
    const body = messagesCodec.encodeError(new GatewayError(code, 'x'), ids) as { error: { type: string } };
    expect(body.error.type).toBe(type);
  });

  it('encodes a mid-stream error as event: error', () => {
    const text = formatSse(messagesCodec.encodeStreamError(new GatewayError('provider_timeout', 'Upstream timed out'), ids));
    expect(text.startsWith('event: error\ndata: ')).toBe(true);
    const [event] = parseEvents(text);
    expect(event.data).toMatchObject({ type: 'error', error: { type: 'timeout_error', message: 'Upstream timed out', code: 'provider_timeout' }, request_id: 'req_1' });
  });
});
