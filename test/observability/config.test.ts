import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.ts';

describe('observability config', () => {
  it('defaults: metrics on at /metrics without a token, request log off', () => {
    const config = configSchema.parse({});
    expect(config.metrics).toEqual({ enabled: true, path: '/metrics' });
    expect(config.logging.requests).toBe(false);
  });

  it('keeps the old boolean logging.requests valid: true means stdout', () => {
    expect(configSchema.parse({ logging: { requests: true } }).logging.requests).toBe('stdout');
    expect(configSchema.parse({ logging: { requests: false } }).logging.requests).toBe(false);
    expect(configSchema.parse({ logging: { requests: 'stdout' } }).logging.requests).toBe('stdout');
    expect(configSchema.parse({ logging: { requests: './logs/requests.jsonl' } }).logging.requests).toBe('./logs/requests.jsonl');
  });

  it('rejects a metrics path that is not a path or would shadow an API route', () => {
    expect(configSchema.parse({ metrics: { path: '/internal/prom', token: 't' } }).metrics).toEqual({ enabled: true, path: '/internal/prom', token: 't' });
    for (const path of ['metrics', '/v1/metrics', '/admin/metrics', '/health', '/a b']) {
      expect(() => configSchema.parse({ metrics: { path } }), path).toThrow();
    }
    expect(() => configSchema.parse({ metrics: { token: '' } })).toThrow();
    expect(() => configSchema.parse({ logging: { requests: '' } })).toThrow();
  });
});
