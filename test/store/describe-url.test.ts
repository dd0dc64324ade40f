import { describe, expect, it } from 'vitest';
import { describePostgresUrl, describeServiceUrl } from '../../src/store/describe-url.ts';

describe('service URLs as serve and the store commands show them', () => {
  it('keep scheme, user, host, port and database, and drop the password and the query', () => {
    expect(describePostgresUrl('postgres://gw:s3cret@db:5432/gateway?sslmode=require')).toBe('postgres://gw@db:5432/gateway');
    expect(describeServiceUrl('redis://:s3cret@cache:6379/2', '?')).toBe('redis://cache:6379/2');
    expect(describeServiceUrl('rediss://default:s3cret@cache:6380', '?')).toBe('rediss://default@cache:6380');
  });

  it('say the fallback for something that is not a URL (never the text itself, which may hold a password)', () => {
    expect(describePostgresUrl('not a url with s3cret')).toBe('the configured PostgreSQL URL');
  });
});
