import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REFRESH_MARGIN_MS, serviceAccountTokens } from '../../../plugins/google/access-token.ts';
import { loadServiceAccount } from '../../../plugins/google/service-account.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory } from '../../../src/upstream/index.ts';
import { createServiceAccountKey, startFakeTokenEndpoint, type FakeTokenEndpoint, type ServiceAccountKey } from '../../helpers/fake-google-token.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

describe('google plugin: service-account tokens against a fake token endpoint', () => {
  let endpoint: FakeTokenEndpoint;
  let key: ServiceAccountKey;
  let http: UndiciHttpFactory;

  beforeEach(async () => {
    endpoint = await startFakeTokenEndpoint(() => ({ publicKey: key.publicKey, clientEmail: key.json.client_email }));
    key = createServiceAccountKey(tempDir(), endpoint.tokenUri);
    http = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
  });
  afterEach(async () => {
    await http.closeAll();
    await endpoint.close();
  });

  it('mints one token for concurrent callers (the JWT verified with the public half), then serves it from the cache', async () => {
    const tokens = serviceAccountTokens(loadServiceAccount(key.file)!, http);
    const first = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(first).size).toBe(1);
    expect(await tokens.token()).toBe(first[0]);
    expect(endpoint.issued).toEqual([first[0]]);
    expect(endpoint.refusals).toEqual([]);
    const assertion = new URLSearchParams(endpoint.requests[0].body).get('assertion')!;
    const header = JSON.parse(Buffer.from(assertion.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: key.json.private_key_id });
  });

  it(`mints a new token ${REFRESH_MARGIN_MS / 60_000} minutes before expiry, and keeps using an unexpired one while the endpoint fails`, async () => {
    // Tokens live 301 s: the refresh is due after 1 s (the clock is the test's, the JWT's iat stays near the fake's).
    endpoint.setExpiresIn(REFRESH_MARGIN_MS / 1000 + 1);
    let now = Date.now();
    const tokens = serviceAccountTokens(loadServiceAccount(key.json)!, http, () => now);
    const first = await tokens.token();
    now += 900;
    expect(await tokens.token()).toBe(first);
    now += 200;
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(endpoint.issued).toEqual([first, second]);
    endpoint.setHandler(() => ({ status: 503, json: { error: 'unavailable' } }));
    now += 1100;
    expect(await tokens.token()).toBe(second);
    now += REFRESH_MARGIN_MS;
    await expect(tokens.token()).rejects.toMatchObject({ code: 'provider_error', message: expect.stringContaining("the token endpoint refused the service account (unavailable)") });
  });

  it('a key the endpoint does not know is a provider_error naming the OAuth error, never the key', async () => {
    const other = createServiceAccountKey(tempDir(), endpoint.tokenUri);
    const tokens = serviceAccountTokens(loadServiceAccount({ ...other.json, client_email: key.json.client_email })!, http);
    const error = await tokens.token().catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('invalid_grant: Invalid JWT Signature.') });
    expect((error as Error).message).not.toContain('PRIVATE KEY');
    expect(endpoint.refusals).toEqual(['Invalid JWT Signature.']);
  });

  it('reads the key from GOOGLE_APPLICATION_CREDENTIALS, and names a missing field without quoting the key', () => {
    expect(loadServiceAccount(undefined, { GOOGLE_APPLICATION_CREDENTIALS: key.file })).toMatchObject({ clientEmail: key.json.client_email, tokenUri: endpoint.tokenUri, projectId: 'gw-test-project' });
    expect(loadServiceAccount(undefined, {})).toBeUndefined();
    expect(() => loadServiceAccount({ ...key.json, client_email: '' })).toThrow('credentials: the service-account key has no client_email');
    expect(() => loadServiceAccount('/nonexistent/key.json')).toThrow(/cannot read the service-account key file \/nonexistent\/key.json \(ENOENT\)/);
    const { token_uri: _t, ...defaulted } = key.json;
    expect(loadServiceAccount(JSON.stringify(defaulted))?.tokenUri).toBe('https://oauth2.googleapis.com/token');
  });
});
