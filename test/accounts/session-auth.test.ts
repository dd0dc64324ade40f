import { afterEach, describe, expect, it } from 'vitest';
import { authenticateSession } from '../../src/server/session-auth.ts';
import { makeGateway, post, type TestGateway } from './make-gateway.ts';
import { H3 } from 'h3';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** A tiny app that answers with the session's account, to test authenticateSession alone. */
function whoAmI(deps: TestGateway['gateway']['deps']): H3 {
  const app = new H3();
  app.get('/me', async (event) => {
    try {
      return { account: (await authenticateSession(event, deps)).account.email };
    } catch (error) {
      const e = error as { status: number; code: string };
      event.res.status = e.status;
      return { code: e.code };
    }
  });
  return app;
}

describe('dashboard sessions', () => {
  it('logs in with email and password and returns a token with its expiry', async () => {
    gw = await makeGateway();
    await gw.account({ email: 'ann@example.test', password: 'correct horse' });
    const res = await gw.fetch('/api/auth/login', post({ email: 'ann@example.test', password: 'correct horse' }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; expires_at: number };
    expect(body.token).toMatch(/^gws_/);
    expect(body.expires_at).toBeGreaterThan(Date.now() / 1000 + 3600);
    expect(Number.isInteger(body.expires_at)).toBe(true);
  });

  it('answers 401 authentication_error for a wrong password or an unknown email', async () => {
    gw = await makeGateway();
    await gw.account({ email: 'bob@example.test', password: 'correct horse' });
    for (const creds of [{ email: 'bob@example.test', password: 'wrong horse' }, { email: 'nobody@example.test', password: 'correct horse' }]) {
      const res = await gw.fetch('/api/auth/login', post(creds));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('authentication_error');
    }
  });

  it('refuses an account that has no password', async () => {
    gw = await makeGateway();
    await gw.account({ email: 'nopw@example.test' });
    const res = await gw.fetch('/api/auth/login', post({ email: 'nopw@example.test', password: 'anything' }));
    expect(res.status).toBe(401);
  });

  it('answers 400 for a body without the fields (spec §7), 422 for one of the wrong type', async () => {
    gw = await makeGateway();
    const res = await gw.fetch('/api/auth/login', post({ email: 'x@example.test' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { missing: string[]; fields: Record<string, string> } } };
    expect(body.error.details.missing).toEqual(['password']);
    expect(Object.keys(body.error.details.fields)).toContain('password');
    expect((await gw.fetch('/api/auth/login', post({ email: 'x@example.test', password: 42 }))).status).toBe(422);
  });

  it('authenticateSession accepts the session token, refuses API keys, and logout ends the session', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ email: 'cy@example.test', password: 'correct horse' });
    const { token } = (await (await gw.fetch('/api/auth/login', post({ email: 'cy@example.test', password: 'correct horse' }))).json()) as { token: string };
    const app = whoAmI(gw.gateway.deps);
    const me = (auth?: string) => Promise.resolve(app.fetch(new Request('http://x/me', { headers: auth ? { authorization: auth } : {} })));

    const ok = await me(`Bearer ${token}`);
    expect(await ok.json()).toEqual({ account: 'cy@example.test' });
    const withKey = await me(`Bearer ${key}`);
    expect(withKey.status).toBe(401);
    expect(await withKey.json()).toEqual({ code: 'authentication_error' });
    expect((await me()).status).toBe(401);
    expect((await me('Bearer gws_notavalidtoken')).status).toBe(401);

    const out = await gw.fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(out.status).toBe(200);
    expect((await me(`Bearer ${token}`)).status).toBe(401);
    const again = await gw.fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(401);
  });

  it('logout refuses an API key', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const res = await gw.fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
  });

  it('a session of a suspended account is refused with 403 account_suspended', async () => {
    gw = await makeGateway();
    const { accountId } = await gw.account({ email: 'dee@example.test', password: 'correct horse' });
    const { token } = (await (await gw.fetch('/api/auth/login', post({ email: 'dee@example.test', password: 'correct horse' }))).json()) as { token: string };
    await gw.gateway.deps.store.accounts.update(accountId, { suspended: true });
    const app = whoAmI(gw.gateway.deps);
    const res = await Promise.resolve(app.fetch(new Request('http://x/me', { headers: { authorization: `Bearer ${token}` } })));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ code: 'account_suspended' });
    const login = await gw.fetch('/api/auth/login', post({ email: 'dee@example.test', password: 'correct horse' }));
    expect(login.status).toBe(403);
  });
});
