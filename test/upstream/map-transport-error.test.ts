import { describe, expect, it } from 'vitest';
import { mapTransportError } from '../../src/upstream/index.ts';
import { undici } from '../../src/upstream/undici.ts';

describe('mapTransportError', () => {
  it("undici's invalid argument (a request it refuses to send) is the gateway's 500, not a provider failure to retry elsewhere", () => {
    const refused = new (undici().errors.InvalidArgumentError)('invalid header value');
    const error = mapTransportError(refused);
    expect(error).toMatchObject({ code: 'internal_error', status: 500, retryable: false });
    expect(error.cause).toBe(refused);
    expect(error.message).not.toContain('provider failed');
  });

  it('a connection the provider broke stays a retryable provider error', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(mapTransportError(reset)).toMatchObject({ code: 'provider_error', status: 502, retryable: true });
  });
});
