// A plugin that bundles its own copy of the plugin kit throws errors of another class object:
// they carry the same Symbol.for mark and must be read as the gateway's own, not as a 500.
import { describe, expect, it } from 'vitest';
import { GatewayError, isGatewayError, toGatewayError } from '../../src/errors/index.ts';
import { UpstreamHttpError } from '../../src/upstream/index.ts';
import { mapPluginError } from '../../src/pipeline/index.ts';
import { ClientClosedError } from '../../src/server/body-errors.ts';
import { FailedAnswerError, usageOfFailedAnswer } from '../../src/formats/index.ts';

/** What a bundled second copy of the kit's GatewayError looks like: another class, the same mark. */
const ERROR_MARK: unique symbol = Symbol.for('gateway.error') as never;
const HTTP_MARK: unique symbol = Symbol.for('gateway.upstream-http-error') as never;

class CopiedGatewayError extends Error {
  readonly [ERROR_MARK] = true;
  readonly code = 'rate_limit_exceeded' as const;
  readonly status = 429;
  get retryable(): boolean {
    return true;
  }
}

class CopiedUpstreamHttpError extends Error {
  readonly [HTTP_MARK] = true;
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`upstream answered ${status}`);
  }
}

describe('errors from another copy of the plugin kit', () => {
  it('count as GatewayError by their mark (isGatewayError, instanceof, toGatewayError keeps them)', () => {
    const copied = new CopiedGatewayError('slow down');
    expect(isGatewayError(copied)).toBe(true);
    expect(copied instanceof GatewayError).toBe(true);
    expect(toGatewayError(copied)).toBe(copied);
    expect(toGatewayError(new Error('x')).code).toBe('internal_error');
    expect({ code: 'x' } instanceof GatewayError).toBe(false);
  });

  it('keep subclass checks on their own class', () => {
    expect(new GatewayError('bad_request', 'x') instanceof ClientClosedError).toBe(false);
  });

  it('map an UpstreamHttpError copy with the call format decoder, chat and media alike', () => {
    const copied = new CopiedUpstreamHttpError(429, { type: 'error', error: { type: 'rate_limit_error', message: 'busy' } });
    expect(copied instanceof UpstreamHttpError).toBe(true);
    const error = mapPluginError('p', 'messages', copied, new AbortController().signal, 'response');
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.message).toContain('busy');
  });

  it("tell a plugin's own throw from the network's (the reply never carries the plugin's message)", () => {
    const signal = new AbortController().signal;
    const own = mapPluginError('acme', 'chat', new Error('boom: https://key@acme.test'), signal, 'response');
    expect(own.code).toBe('provider_error');
    expect(own.message).toContain('its plugin threw an error that is neither a network failure');
    expect(own.message).not.toContain('boom');
    expect(own.cause).toBeInstanceOf(Error);
    const bug = mapPluginError('acme', 'chat', new TypeError("Cannot read properties of undefined (reading 'x')"), signal, 'media');
    expect(bug.message).toContain('its plugin threw an error that is neither a network failure');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(mapPluginError('acme', 'chat', reset, signal, 'response').message).toBe('The connection to the provider failed.');
    const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(mapPluginError('acme', 'chat', fetchFailed, signal, 'response').message).toBe('The connection to the provider failed.');
    const aborted = new AbortController();
    aborted.abort();
    expect(mapPluginError('acme', 'chat', new Error('boom'), aborted.signal, 'response').code).toBe('provider_timeout');
  });
});

describe('a FailedAnswerError from another copy of the plugin kit', () => {
  // A plugin's codec throws it for a whole answer that failed but used tokens (Bedrock's malformed_tool_use):
  // the usage it carries is what the failed answer is billed by, whichever copy of the kit made it.
  const FAILED_MARK: unique symbol = Symbol.for('gateway.failed-answer-error') as never;
  class CopiedFailedAnswerError extends CopiedGatewayError {
    readonly [FAILED_MARK] = true;
    constructor(readonly usage: { inputTokens: number; outputTokens: number }) {
      super('malformed_tool_use');
    }
  }

  it('is billed by the usage it carries, as the gateway\'s own is', () => {
    const usage = { inputTokens: 27, outputTokens: 11 };
    expect(usageOfFailedAnswer(new CopiedFailedAnswerError(usage))).toEqual(usage);
    expect(usageOfFailedAnswer(new FailedAnswerError('provider_error', 'x', {}, usage))).toEqual(usage);
    expect(usageOfFailedAnswer(new GatewayError('provider_error', 'x'))).toBeUndefined();
    expect(usageOfFailedAnswer({ usage })).toBeUndefined();
  });
});
