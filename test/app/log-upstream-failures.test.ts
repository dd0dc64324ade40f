import { describe, expect, it } from 'vitest';
import { logUpstreamFailures } from '../../src/app/log-upstream-failures.ts';
import { GatewayError } from '../../src/errors/index.ts';
import { CircuitBreaker } from '../../src/routing/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { forgetSecrets, rememberSecret } from '../../src/util/redact-secrets.ts';

function setup() {
  let now = 0;
  const lines: string[] = [];
  const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 30_000, now: () => now });
  const stop = logUpstreamFailures(breaker, createLogger('warn', (line) => lines.push(line)), () => now);
  return { breaker, lines, stop, advance: (ms: number) => (now += ms) };
}

describe('upstream failures are logged at warn', () => {
  it('with class, status, cause and circuit; never a configured key or URL credentials', () => {
    const { breaker, lines } = setup();
    rememberSecret('sk-upstream-secret-123456');
    try {
      const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
      const error = new GatewayError('provider_unavailable', "The provider 'up' cannot be reached (key sk-upstream-secret-123456).", {
        cause: new Error('fetch https://user:hunter2@upstream.test/v1 failed', { cause: socket }),
      });
      breaker.recordFailure('up/m1', error);
      expect(lines).toHaveLength(1);
      const line = lines[0];
      expect(line).toMatch(/^\[gateway\] warn: upstream call failed provider=up model=up\/m1 error=provider_unavailable status=503 /);
      expect(line).toContain('cause=Error: fetch https://[redacted]@upstream.test/v1 failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)');
      expect(line).toContain('circuit=closed consecutive_failures=1');
      expect(line).not.toContain('sk-upstream-secret-123456');
      expect(line).not.toContain('hunter2');
    } finally {
      forgetSecrets();
    }
  });

  it('one line per model per 10 s, except when its circuit changes; the skipped ones are counted', () => {
    const { breaker, lines, advance, stop } = setup();
    const fail = () => breaker.recordFailure('up/m1', new GatewayError('provider_error', 'boom'));
    fail(); // closed, logged
    fail(); // closed, quiet
    fail(); // opens: logged
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('circuit=open consecutive_failures=3');
    fail(); // open, quiet
    advance(10_000);
    fail();
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('suppressed=1');
    stop();
    fail();
    expect(lines).toHaveLength(3);
  });
});
