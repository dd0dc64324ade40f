import { describe, expect, it } from 'vitest';
import { GatewayError, validationError } from '../../../src/errors/index.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { parseEvents, readJsonFixture } from '../stream-helpers.ts';
import { formatSse } from '../../../src/sse/index.ts';

const ids = { requestId: 'req_1', correlationId: 'cor_1' };

describe('chat errors', () => {
  it('decodes an OpenAI error body', () => {
    expect(chatCodec.decodeError(429, readJsonFixture('chat/error-rate-limit.json'))).toEqual({
      message: 'Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.',
      type: 'requests',
      code: 'rate_limit_exceeded',
    });
    expect(chatCodec.decodeError(400, readJsonFixture('chat/error-invalid-request.json'))).toMatchObject({ type: 'invalid_request_error', code: 'invalid_type' });
  });

  it('falls back to a status message for bodies it cannot read', () => {
    expect(chatCodec.decodeError(502, null).message).toContain('502');
  });

  it('encodes the spec envelope plus OpenAI type and param', () => {
    const body = chatCodec.encodeError(validationError({ 'messages[0].role': 'must be one of …' }), ids);
    expect(body).toMatchObject({
      error: {
        code: 'validation_error',
        request_id: 'req_1',
        type: 'invalid_request_error',
        param: 'messages[0].role',
        details: { fields: { 'messages[0].role': 'must be one of …' } },
      },
      correlation_id: 'cor_1',
    });
    expect(typeof body.timestamp).toBe('number');
  });

  it.each([
    ['invalid_api_key', 'authentication_error'],
    ['insufficient_balance', 'insufficient_quota'],
    ['authorization_error', 'permission_error'],
    ['model_not_found', 'invalid_request_error'],
    ['rate_limit_exceeded', 'rate_limit_error'],
    ['quota_exceeded', 'insufficient_quota'],
    ['provider_error', 'api_error'],
    ['provider_timeout', 'api_error'],
  ] as const)('%s → error.type %s', (code, type) => {
    const body = chatCodec.encodeError(new GatewayError(code, 'x'), ids) as { error: { type: string; param: unknown } };
    expect(body.error.type).toBe(type);
    expect(body.error.param).toBeNull();
  });

  it('keeps retry_after on throttling', () => {
    const body = chatCodec.encodeError(new GatewayError('rate_limit_exceeded', 'slow down', { retryAfter: 7 }), ids) as { error: Record<string, unknown> };
    expect(body.error.retry_after).toBe(7);
  });

  it('encodes a mid-stream error as one data: event with the envelope', () => {
    const text = formatSse(chatCodec.encodeStreamError(new GatewayError('provider_unavailable', 'Upstream overloaded'), ids));
    expect(text.startsWith('data: ')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(true);
    const [event] = parseEvents(text);
    expect(event.event).toBeUndefined();
    expect(event.data.error).toMatchObject({ code: 'provider_unavailable', message: 'Upstream overloaded', type: 'api_error', request_id: 'req_1' });
  });
});
