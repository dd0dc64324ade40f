/**
 * Guessing a credential on the dashboard and admin surfaces is bounded per client address
 * (`limits.failedCredentials`, docs/accounts-and-limits.md): a session token on the account
 * procedures (/api/trpc), the Media Library (/v1/media) and logout, the admin token on /admin/trpc.
 * Past the budget the address gets 429 rate_limit_exceeded with Retry-After, its right
 * credential too, until its oldest failure leaves the window; another address is not held, and
 * calls with a good credential are never counted. Login was bounded before (5/min per address).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

const BUDGET = 4;

let gw: TestGateway;
let session: string;
let adminToken: string;

beforeAll(async () => {
  gw = await makeGateway({ limits: { failedCredentials: BUDGET } }, { adminToken: 'gwa_the-admin-token' });
  await gw.account({ email: 'op@example.test', password: 'correct horse' });
  const login = await gw.fetch('/api/auth/login', { ...post({ email: 'op@example.test', password: 'correct horse' }), ip: '198.51.100.1' });
  session = ((await login.json()) as { token: string }).token;
  adminToken = gw.gateway.deps.adminToken!;
});
afterAll(() => gw?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Surface {
  name: string;
  path: string;
  good: () => string;
}

const surfaces: Surface[] = [
  { name: 'the account procedures (/api/trpc)', path: '/api/trpc/me', good: () => session },
  { name: 'the Media Library (/v1/media)', path: '/v1/media/generations', good: () => session },
  { name: 'the admin procedures (/admin/trpc)', path: '/admin/trpc/status', good: () => adminToken },
];

let address = 0;
/** A loopback address of its own per test (the admin procedures answer loopback only here). */
const nextAddress = () => `127.0.0.${++address + 10}`;

describe.each(surfaces)('failed credentials on $name', ({ path, good }) => {
  const call = (token: string, ip: string) => gw.fetch(path, { headers: bearer(token), ip });

  it('are refused 401 up to the budget, then 429 with Retry-After for that address, its right credential too', async () => {
    const guesser = nextAddress();
    for (let i = 0; i < BUDGET; i++) {
      const res = await call(`gws_wrong${i}`, guesser);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('authentication_error');
    }
    const refused = await call('gws_wrong-again', guesser);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(body.error.message).toMatch(/failed/i);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A right guess now is refused the same: the guesser learns nothing until the window moves.
    expect((await call(good(), guesser)).status).toBe(429);
    // Another address is not held.
    expect((await call(good(), nextAddress())).status).toBe(200);
  });

  it('a good credential is never counted, and does not slow its caller', async () => {
    const operator = nextAddress();
    for (let i = 0; i < BUDGET * 5; i++) expect((await call(good(), operator)).status).toBe(200);
    for (let i = 0; i < BUDGET; i++) expect((await call(`gws_wrong${i}`, operator)).status).toBe(401);
    expect((await call('gws_wrong-again', operator)).status).toBe(429);
  });

  it('a call with no credential at all is a 401 that is not counted', async () => {
    const browser = nextAddress();
    for (let i = 0; i < BUDGET * 3; i++) expect((await gw.fetch(path, { ip: browser })).status).toBe(401);
    expect((await call(good(), browser)).status).toBe(200);
  });
});
