import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.ts';

describe('config: store', () => {
  it('is absent by default (the data dir) and takes a postgres URL', () => {
    expect(parseConfig({}).store).toBeUndefined();
    expect(parseConfig({ store: { postgres: 'postgres://gw@db:5432/gateway' } }).store).toEqual({ postgres: 'postgres://gw@db:5432/gateway' });
    expect(parseConfig({ store: { postgres: 'postgresql://gw@db/gateway', poolSize: 20 } }).store?.poolSize).toBe(20);
  });

  it('refuses other URLs and unknown keys', () => {
    expect(() => parseConfig({ store: { postgres: 'mysql://db/x' } })).toThrow(ConfigError);
    expect(() => parseConfig({ store: { postgres: 'postgres://db/x', redis: 'redis://x' } })).toThrow(ConfigError);
  });
});
