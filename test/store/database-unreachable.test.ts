import { describe, expect, it } from 'vitest';
import { databaseUnavailable, isDatabaseUnreachable } from '../../src/store/index.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnreachable', () => {
  it('knows a database that is away from a query it refused', () => {
    expect(isDatabaseUnreachable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnreachable(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isDatabaseUnreachable(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isDatabaseUnreachable(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isDatabaseUnreachable(withCode('sorry, too many clients already', '53300'))).toBe(true);
    expect(isDatabaseUnreachable(withCode('connection failure', '08006'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('a query failed', { cause: withCode('read ECONNRESET', 'ECONNRESET') }))).toBe(true);

    expect(isDatabaseUnreachable(withCode('syntax error at or near "selec"', '42601'))).toBe(false);
    expect(isDatabaseUnreachable(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isDatabaseUnreachable(withCode('no such file', 'ENOENT'))).toBe(false);
    expect(isDatabaseUnreachable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnreachable('ECONNREFUSED')).toBe(false);
  });

  it('answers 503 service_unavailable with a retry for such an error, nothing for another', () => {
    const error = databaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503, retryAfter: 1, message: 'The database is unavailable right now; retry shortly.' });
    expect(databaseUnavailable(withCode('syntax error', '42601'))).toBeUndefined();
  });
});
