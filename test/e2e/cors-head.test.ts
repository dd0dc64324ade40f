import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const APP = 'http://app.example.test:5173';

/** Headers a browser would have to preflight: everything but the CORS-safelisted ones. */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language', 'user-agent', 'content-length']);

/** The header names an official client sends for one call, captured through its `fetch` option. */
async function headersSentBy(call: (fetch: typeof globalThis.fetch) => Promise<unknown>): Promise<string[]> {
  let names: string[] = [];
  await call(async (input, init) => {
    names = [...new Headers(init?.headers).keys()];
    return fetch(input, init);
  });
  return names.filter((n) => !SAFELISTED.has(n));
}

function preflight(url: string, origin: string, method: string, headers: string[]): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers.join(',') },
  });
}

describe('CORS and HEAD on a real server', () => {
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { server: { cors: { origins: [APP, 'https://*.example.org'] } }, providers: { mock: { plugin: 'mock' } } } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('a preflight for what the openai client sends is 204 and grants every header', async () => {
    const openaiHeaders = await headersSentBy((f) =>
      new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0, fetch: f, organization: 'org-1', project: 'proj-1' }).chat.completions.create({
        model: 'mock/echo',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(openaiHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-stainless-os', 'x-stainless-retry-count', 'openai-organization']));
    const res = await preflight(`${gw.url}/v1/chat/completions`, APP, 'POST', openaiHeaders);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const granted = (res.headers.get('access-control-allow-headers') ?? '').split(', ');
    expect(granted.sort()).toEqual([...openaiHeaders].sort());
    expect(res.headers.get('vary')).toContain('Origin');
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('a preflight for what the anthropic client sends from a browser is 204 and grants every header', async () => {
    const anthropicHeaders = await headersSentBy((f) =>
      new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0, fetch: f, dangerouslyAllowBrowser: true }).messages.create({
        model: 'mock/echo',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(anthropicHeaders).toEqual(expect.arrayContaining(['anthropic-version', 'anthropic-dangerous-direct-browser-access', 'x-stainless-lang']));
    // This SDK sends the key as a bearer token; older ones (and curl users) send X-API-Key.
    expect(anthropicHeaders.some((h) => h === 'authorization' || h === 'x-api-key')).toBe(true);
    const res = await preflight(`${gw.url}/v1/messages`, 'https://chat.example.org', 'POST', anthropicHeaders);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://chat.example.org');
    expect((res.headers.get('access-control-allow-headers') ?? '').split(', ').sort()).toEqual([...anthropicHeaders].sort());
  });

  it('grants only allowed headers, and nothing to an origin not allowed', async () => {
    const partial = await preflight(`${gw.url}/v1/chat/completions`, APP, 'POST', ['X-API-Key', 'anthropic-beta', 'x-not-allowed']);
    expect(partial.headers.get('access-control-allow-headers')).toBe('x-api-key, anthropic-beta');
    for (const origin of ['http://evil.test', 'https://example.org', 'http://app.example.test:5174']) {
      const denied = await preflight(`${gw.url}/v1/chat/completions`, origin, 'POST', ['authorization']);
      expect(denied.status).toBe(204); // an OPTIONS answer, without any CORS grant
      expect([...denied.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('actual requests from an allowed origin carry Allow-Origin and expose the request id and rate-limit headers, errors and streams too', async () => {
    const ok = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'cors' }] }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = (ok.headers.get('access-control-expose-headers') ?? '').split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']));
    // The openai and Anthropic SDKs in a browser read x-should-retry (false on a used-up quota, a conflict) before retrying a 409 or 429.
    expect(exposed).toContain('x-should-retry');
    // The Anthropic SDK in a browser (dangerouslyAllowBrowser) reads the request id from `request-id`.
    const messages = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { origin: APP, 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', max_tokens: 10, messages: [{ role: 'user', content: 'cors' }] }),
    });
    expect(messages.headers.get('request-id')).toBe(messages.headers.get('x-request-id'));
    expect((messages.headers.get('access-control-expose-headers') ?? '').split(', ')).toContain('request-id');

    const stream = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', stream: true, messages: [{ role: 'user', content: 'cors stream' }] }),
    });
    expect(stream.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await stream.text()).toContain('[DONE]');

    const denied = await fetch(`${gw.url}/v1/models`, { headers: { origin: APP } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(APP);

    const other = await fetch(`${gw.url}/v1/models`, { headers: { origin: 'http://evil.test', authorization: `Bearer ${gw.key}` } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  // Before: the preflight granted none of the upload's X-Goog-Upload-* headers and the answer exposed no X-Goog-Upload-URL,
  // so @google/genai's files.upload in a browser could not start, nor have read where to send the bytes.
  it("@google/genai's files.upload as a browser runs it: each call preflighted, and only the exposed answer headers read", async () => {
    const SAFE_ANSWER = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);
    const original = globalThis.fetch;
    const refused: string[] = [];
    // A browser's fetch from APP: a preflight for the headers that need one, the call with Origin, and the answer's headers cut to what CORS exposes.
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
      const headers = new Headers(init?.headers);
      const needing = [...headers.keys()].filter((name) => !SAFELISTED.has(name));
      const pre = await original(url, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': init?.method ?? 'GET', 'access-control-request-headers': needing.join(',') } });
      const granted = (pre.headers.get('access-control-allow-headers') ?? '').split(', ');
      refused.push(...needing.filter((name) => !granted.includes(name)));
      headers.set('origin', APP);
      const answer = await original(url, { ...init, headers });
      const exposed = new Set((answer.headers.get('access-control-expose-headers') ?? '').split(', '));
      const seen = new Headers();
      for (const [name, value] of answer.headers) if (SAFE_ANSWER.has(name) || exposed.has(name)) seen.set(name, value);
      return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: seen });
    }) as typeof fetch;
    try {
      const ai = new GoogleGenAI({ apiKey: gw.key!, httpOptions: { baseUrl: gw.url } });
      const file = await ai.files.upload({ file: new Blob(['notes from the browser'], { type: 'text/plain' }), config: { displayName: 'notes' } });
      expect(file).toMatchObject({ displayName: 'notes', mimeType: 'text/plain', sizeBytes: '22', state: 'ACTIVE' });
    } finally {
      globalThis.fetch = original;
    }
    expect(refused).toEqual([]);
  });

  it('HEAD answers GET routes with the same status and headers and no body', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    for (const path of ['/health', '/v1/models', '/v1/models/mock/echo', '/v1/credits', '/v1/key', '/v1/responses/tools', '/v1/models/mock/nope']) {
      const get = await fetch(`${gw.url}${path}`, { headers: auth });
      const getBody = await get.text();
      const head = await fetch(`${gw.url}${path}`, { method: 'HEAD', headers: auth });
      expect({ path, status: head.status }).toEqual({ path, status: get.status });
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      if (get.headers.get('content-length')) expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
      expect(await head.text()).toBe('');
    }
  });
});
