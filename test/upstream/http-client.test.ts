import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, readBody, UndiciHttpFactory } from '../../src/upstream/index.ts';
import { forgetSecrets, MAX_SECRETS, redactSecrets, rememberSecret } from '../../src/util/redact-secrets.ts';

let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('x-one', 'a');
      res.setHeader('set-cookie', ['c=1', 'd=2']);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('UndiciHttpFactory', () => {
  it("refuses a base URL that is not one, naming the provider's config key (a plugin passing on a missing ctx.baseURL)", () => {
    const factory = new UndiciHttpFactory(DEFAULT_TIMEOUTS, {}, 'mine');
    expect(() => factory.client(undefined as unknown as string)).toThrow("http.client() needs an absolute URL, got undefined: give provider 'mine' a baseURL in the config (providers.mine.baseURL)");
    expect(() => factory.client('api.example.com/v1')).toThrow('http.client() needs an absolute URL, got "api.example.com/v1"');
  });

  it('answers with the status, the body and the headers (parsed when read, also after the body; repeated ones as a list)', async () => {
    const factory = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
    const client = factory.client(base);
    const headers = Object.freeze({ authorization: 'Bearer t', 'content-type': 'application/json' });
    const first = await client.request({ method: 'POST', path: '/chat/completions', headers, body: '{}' });
    expect(first.status).toBe(200);
    expect(JSON.parse((await readBody(first.body)).toString('utf8'))).toEqual({ path: '/v1/chat/completions', auth: 'Bearer t' });
    // Another response in between: the first one's headers are still its own.
    const second = await client.request({ method: 'POST', path: '/other', headers, body: '{}' });
    await readBody(second.body);
    expect(first.headers['x-one']).toBe('a');
    expect(first.headers['set-cookie']).toEqual(['c=1', 'd=2']);
    expect(first.headers).toBe(first.headers);
    expect(second.headers['content-type']).toBe('application/json');
    await client.close();
    await factory.closeAll();
  });
});

describe('credential headers a plugin signs per request', () => {
  afterEach(() => forgetSecrets());

  it('never push a configured key out of the redaction set (a SigV4 Authorization is new on every call)', async () => {
    const KEY = 'sk-configured-upstream-key-0123456789';
    rememberSecret(KEY);
    const factory = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
    const client = factory.client(base);
    const token = 'FwoGZXIvYXdzSESSIONTOKEN0123';
    for (let i = 0; i < MAX_SECRETS + 50; i += 1) {
      const authorization = `AWS4-HMAC-SHA256 Credential=ASIAFAKE/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${i.toString(16).padStart(64, '0')}`;
      const response = await client.request({ method: 'POST', path: '/x', headers: { authorization, 'x-amz-security-token': token }, body: '{}' });
      await readBody(response.body);
    }
    expect(redactSecrets(`upstream said ${KEY}`)).toBe('upstream said [redacted]');
    // The session token sent with every call is redacted too.
    expect(redactSecrets(`token ${token}`)).toBe('token [redacted]');
    await client.close();
    await factory.closeAll();
  });
});
