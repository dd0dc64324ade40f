import { describe, expect, it } from 'vitest';
import { corsConfigSchema, parseConfig } from '../../src/config/index.ts';
import { createCors } from '../../src/server/cors.ts';

const cors = (input: unknown) => createCors(corsConfigSchema.parse(input));

describe('server.cors', () => {
  it("'*' allows any origin with a literal *, or echoes it when credentials are on", () => {
    expect(cors({ origins: '*' }).allowOrigin('https://anything.test')).toBe('*');
    expect(cors({ origins: '*', credentials: true }).allowOrigin('https://anything.test')).toBe('https://anything.test');
    const headers = cors({ origins: '*' }).preflightHeaders('*', 'Authorization');
    expect(headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    expect(headers['access-control-allow-credentials']).toBeUndefined();
    expect(cors({ origins: '*', credentials: true }).preflightHeaders('https://a.test', '')['access-control-allow-credentials']).toBe('true');
  });

  it('a list matches exact origins (case-insensitively) and *. subdomains, never the bare domain or another scheme', () => {
    const policy = cors({ origins: ['http://localhost:5173', 'https://*.example.com'] });
    expect(policy.allowOrigin('http://localhost:5173')).toBe('http://localhost:5173');
    expect(policy.allowOrigin('HTTP://LOCALHOST:5173')).toBe('HTTP://LOCALHOST:5173');
    expect(policy.allowOrigin('http://localhost:5174')).toBeUndefined();
    expect(policy.allowOrigin('https://app.example.com')).toBe('https://app.example.com');
    expect(policy.allowOrigin('https://a.b.example.com')).toBe('https://a.b.example.com');
    expect(policy.allowOrigin('https://example.com')).toBeUndefined();
    expect(policy.allowOrigin('http://app.example.com')).toBeUndefined();
    expect(policy.allowOrigin('https://evilexample.com')).toBeUndefined();
    expect(policy.allowOrigin('null')).toBeUndefined();
  });

  it('preflights grant the requested headers that are allowed, by name or prefix, plus configured ones', () => {
    const policy = cors({ origins: '*', headers: ['x-my-app', 'x-trace-*'] });
    const granted = policy.preflightHeaders('*', 'Authorization, X-Stainless-Arch, x-my-app, x-trace-id, openai-project, cookie')['access-control-allow-headers'];
    expect(granted).toBe('authorization, x-stainless-arch, x-my-app, x-trace-id, openai-project');
    expect(policy.preflightHeaders('*', undefined)['access-control-allow-headers']).toBeUndefined();
  });

  it("grants by default what the Google and AWS SDKs send from a browser (the Gemini and Bedrock faces' keys) and the gateway's own X-Session-Id", () => {
    const policy = cors({ origins: '*' });
    const google = 'content-type, x-goog-api-client, x-goog-api-key';
    expect(policy.preflightHeaders('*', google)['access-control-allow-headers']).toBe(google);
    const aws = 'amz-sdk-invocation-id, amz-sdk-request, authorization, content-type, x-amz-content-sha256, x-amz-date, x-amz-user-agent';
    expect(policy.preflightHeaders('*', aws)['access-control-allow-headers']).toBe(aws);
    expect(policy.preflightHeaders('*', 'x-session-id')['access-control-allow-headers']).toBe('x-session-id');
  });

  it("grants what @google/genai's files.upload sends from a browser (Google's resumable upload; before, none of X-Goog-Upload-*)", () => {
    const policy = cors({ origins: '*' });
    const upload = 'content-type, x-goog-api-client, x-goog-api-key, x-goog-upload-command, x-goog-upload-header-content-length, x-goog-upload-header-content-type, x-goog-upload-offset, x-goog-upload-protocol';
    expect(policy.preflightHeaders('*', upload)['access-control-allow-headers']).toBe(upload);
  });

  it('is validated: origins with a path, wildcards elsewhere and unknown keys are config errors', () => {
    expect(() => parseConfig({ server: { cors: { origins: ['https://app.test/path'] } } }, 'c.ts')).toThrow(/server\.cors\.origins\[0\]: an origin is scheme:\/\/host/);
    expect(() => parseConfig({ server: { cors: { origins: ['https://app.*.test'] } } }, 'c.ts')).toThrow(/server\.cors\.origins\[0\]/);
    expect(() => parseConfig({ server: { cors: { origin: '*' } } }, 'c.ts')).toThrow('unknown key "server.cors.origin" — did you mean "server.cors.origins"?');
    expect(parseConfig({ server: { cors: { origins: '*' } } }).server.cors).toMatchObject({ origins: '*', credentials: false, maxAge: 600 });
  });
});
