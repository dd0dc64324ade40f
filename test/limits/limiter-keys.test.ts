import { describe, expect, it } from 'vitest';
import { LimiterKeys } from '../../src/limits/limiter-keys.ts';
import { rateLimitConfigSchema, resolveConcurrency, resolveLimit } from '../../src/limits/index.ts';

describe('LimiterKeys', () => {
  it("makes a caller id's key once and answers it again", () => {
    const made: string[] = [];
    const keys = new LimiterKeys((id) => {
      made.push(id);
      return `u:${id}:gen`;
    });
    expect(keys.of('acct_1')).toBe('u:acct_1:gen');
    expect(keys.of('acct_2')).toBe('u:acct_2:gen');
    expect(keys.of('acct_1')).toBe('u:acct_1:gen');
    expect(made).toEqual(['acct_1', 'acct_2']);
  });

  it('forgets every key once it holds its bound, and still answers each', () => {
    const made: string[] = [];
    const keys = new LimiterKeys((id) => {
      made.push(id);
      return `k:${id}`;
    }, 2);
    expect([keys.of('a'), keys.of('b'), keys.of('c'), keys.of('c'), keys.of('a')]).toEqual(['k:a', 'k:b', 'k:c', 'k:c', 'k:a']);
    // c filled the cache past its bound of two: a and b were dropped, so a is made again.
    expect(made).toEqual(['a', 'b', 'c', 'a']);
  });

  it('gives resolveLimit and resolveConcurrency the keys they made before, a caller at a time', () => {
    const config = rateLimitConfigSchema.parse({});
    const ip = '10.0.0.1';
    for (let i = 0; i < 3; i++) {
      expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, account: { id: `acct_${i}`, tier: 'free' } }, config)?.key).toBe(`u:acct_${i}:gen`);
      expect(resolveLimit({ method: 'GET', path: '/v1/usage', ip, account: { id: `acct_${i}`, tier: 'free' } }, config)?.key).toBe(`u:acct_${i}:all`);
      expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, apiKey: { id: `key_${i}`, rpm: 5 } }, config)?.key).toBe(`k:key_${i}`);
      expect(resolveConcurrency({ method: 'POST', path: '/v1/chat/completions', ip, apiKey: { id: `key_${i}` } }, config)?.key).toBe(`k:key_${i}:gen`);
      expect(resolveConcurrency({ method: 'POST', path: '/v1/chat/completions', ip }, config)?.key).toBe('ip:10.0.0.1:gen');
    }
  });
});
