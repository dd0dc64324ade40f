import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { bootstrapDataDir } from '../../src/app/bootstrap.ts';
import { parseConfig } from '../../src/config/index.ts';
import { createApp } from '../../src/server/app.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';

// The app is a function from request to response: these run in-process, no socket.
describe('h3 app in-process', () => {
  let gateway: Gateway;
  let key: string;
  const logged: string[] = [];

  beforeAll(async () => {
    gateway = await createGateway({
      config: parseConfig({ providers: { mock: { plugin: 'mock' } } }),
      configDir: REPO_ROOT,
      dataDir: path.join(tempDir(), 'data'),
      log: createLogger('debug', (line) => logged.push(line)),
    });
    key = (await bootstrapDataDir(gateway.deps.store, gateway.deps.clock))!.key;
  });
  afterAll(async () => {
    await gateway.close();
  });

  // Found by a newcomer: the OpenAI SDK given no apiKey sends OPENAI_API_KEY, a dashboard user tries the session token;
  // both got only "invalid, expired or revoked". The token is never quoted back.
  it('a credential that is no gateway key says what it is and where keys come from; an sk-gw- key stays terse', async () => {
    const messageFor = async (token: string) => {
      const res = await gateway.app.request('/v1/models', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_api_key');
      expect(error.message).not.toContain(token);
      return error.message;
    };
    expect(await messageFor('sk-gw-wrongwrongwrong')).toBe('The API key is invalid, expired or revoked.');
    const create = "create an API key (sk-gw-…) with `gateway keys create` or on the dashboard's API keys page.";
    expect(await messageFor('sk-proj-abcdefghijklmnop')).toBe(
      `The API key is invalid, expired or revoked: gateway API keys start with sk-gw- (a provider's own key, such as an OPENAI_API_KEY or AWS access key an SDK took from the environment, belongs in the gateway's config); ${create}`,
    );
    expect(await messageFor('gws_abcdefghijklmnopqrstuvwxyz')).toBe(`The API key is invalid, expired or revoked: this is a dashboard session token, which only the dashboard's routes take; ${create}`);
    expect(await messageFor('gwa_abcdefghijklmnopqrstuvwxyz')).toBe(`The API key is invalid, expired or revoked: this is the server's admin token, which only the admin procedures take; ${create}`);
  });

  // `formats` are the wire formats a model is reached through; a media model answers none of them (a chat request is a 400).
  it('/v1/models lists a chat model with its provider formats and a media model with none', async () => {
    const auth = { headers: { authorization: `Bearer ${key}` } };
    const { data } = (await (await gateway.app.request('/v1/models', auth)).json()) as { data: Array<{ id: string; type: string; formats: string[] }> };
    expect(data.find((m) => m.id === 'mock/echo')).toMatchObject({ type: 'chat', formats: expect.arrayContaining(['chat']) });
    const media = data.filter((m) => m.type !== 'chat');
    expect(media.map((m) => m.id)).toContain('mock/image');
    for (const m of media) expect(m, m.id).toMatchObject({ formats: [] });
    expect(await (await gateway.app.request('/v1/models/mock%2Fimage', auth)).json()).toMatchObject({ type: 'image_generation', formats: [] });
    const chat = await gateway.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...auth.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/image', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toContain('is not a chat model');
  });

  it('answers a chat completion through app.request', async () => {
    const res = await gateway.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'in process' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0].message.content).toBe('in process');
  });

  it("says Bedrock's Converse routes come with the bedrock plugin when no provider uses it", async () => {
    for (const action of ['converse', 'converse-stream']) {
      const res = await gateway.app.request(`/model/mock%2Fecho/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }),
      });
      expect(res.status).toBe(404);
      // The AWS SDKs read the exception's name from this header and its words from a top-level message.
      expect(res.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException');
      expect(res.headers.get('x-amzn-requestid')).toMatch(/^req_/);
      const body = (await res.json()) as { message: string; error: { message: string } };
      expect(body.error.message).toBe(
        `No route for POST /model/mock%2Fecho/${action}. The Bedrock Converse routes come with the bedrock plugin: add a provider with plugin "bedrock" (any model then answers them); InvokeModel (/model/{id}/invoke) needs none.`,
      );
      expect(body.message).toBe(body.error.message);
    }
  });

  // A Gemini client on /v1beta was told 'GET /v1/models lists the models served' (an OpenAI route) for an unknown model, and nothing for an unknown route.
  it("a Gemini client under /v1beta is pointed at Gemini's model list (GET /v1beta/models) for an unknown model or route, in Google's error shape", async () => {
    const gemini = { authorization: undefined, 'x-goog-api-key': key, 'x-goog-api-client': 'google-genai-sdk/1.30.0 gl-node/22.0.0', 'content-type': 'application/json' };
    const contents = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    const answer = async (method: string, url: string, headers: Record<string, string | undefined>, body?: string) => {
      const res = await gateway.app.request(url, { method, headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>, body });
      return { status: res.status, body: (await res.json()) as { error: { code: unknown; status?: string; message: string; details?: Array<Record<string, unknown>> } } };
    };
    for (const url of ['/v1beta/models/nope:generateContent', '/v1beta/models/nope:streamGenerateContent?alt=sse', '/v1beta/models/nope:countTokens', '/v1beta/nope/model:generateContent']) {
      const { status, body } = await answer('POST', url, gemini, contents);
      expect(status, url).toBe(404);
      expect(body.error, url).toMatchObject({ code: 404, status: 'NOT_FOUND', details: [expect.objectContaining({ reason: 'model_not_found' })] });
      expect(body.error.message, url).toMatch(/does not exist or is not served by any configured provider.*\. GET \/v1beta\/models lists the models served\.$/);
      expect(body.error.message, url).not.toContain('/v1/models');
    }
    for (const [method, url] of [['GET', '/v1beta/cachedContents'], ['POST', '/v1beta/cachedContents'], ['GET', '/v1beta/tunedModels']]) {
      const { status, body } = await answer(method, url, gemini, method === 'POST' ? '{}' : undefined);
      expect(status, url).toBe(404);
      expect(body.error, url).toMatchObject({ code: 404, status: 'NOT_FOUND', message: `No route for ${method} ${url}. GET /v1beta/models lists the models served.` });
    }
    // Google's v1 (@google/genai 3's default) reads its list at GET /v1/models, which answers a Google SDK in its shape; OpenAI's clients keep theirs.
    const v1 = await answer('POST', '/v1/models/nope:generateContent', gemini, contents);
    expect(v1.body.error).toMatchObject({ status: 'NOT_FOUND', message: expect.stringMatching(/GET \/v1\/models lists the models served\.$/) });
    const openai = await answer('POST', '/v1/chat/completions', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'Hi' }] }));
    expect(openai.body.error).toMatchObject({ code: 'model_not_found', message: expect.stringMatching(/GET \/v1\/models lists the models served\.$/) });
    expect((await answer('GET', '/v1/nothing', { authorization: `Bearer ${key}` })).body.error.message).toBe('No route for GET /v1/nothing.');
  });

  it("answers any Bedrock Runtime path it does not serve as the AWS SDK reads it, GETs too (not the dashboard's page)", async () => {
    for (const [method, url] of [['POST', '/guardrail/gr1/version/1/apply'], ['POST', '/model/mock%2Fecho/invok'], ['GET', '/async-invoke/arn1'], ['GET', '/model/mock%2Fecho/invoke']]) {
      const res = await gateway.app.request(url, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('x-amzn-errortype')).toBe(method === 'GET' && url.endsWith('/invoke') ? 'ValidationException' : 'ResourceNotFoundException');
      expect(res.headers.get('x-amzn-requestid')).toMatch(/^req_/);
      expect(((await res.json()) as { message: string }).message).toMatch(/^(No route for|Method GET is not allowed)/);
    }
    const other = await gateway.app.request('/models-typo', { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-amzn-errortype')).toBeNull();
  });

  it('streams through a web ReadableStream when there is no Node response', async () => {
    const res = await gateway.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', stream: true, messages: [{ role: 'user', content: 'web stream' }] }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('"content":"web stream"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('turns an unexpected exception into 500 internal_error without internals', async () => {
    const app = createApp({
      ...gateway.deps,
      guards: {
        admit: () => {
          throw new TypeError('secret internal detail at /src/some/file.ts:12');
        },
        admitAnonymous: async () => ({}),
        credentialLockout: () => undefined,
        credentialFailed: () => undefined,
      },
    });
    const res = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    const body = JSON.parse(text) as { error: { code: string; message: string; request_id: string } };
    expect(body.error.code).toBe('internal_error');
    expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(text).not.toContain('secret internal detail');
    expect(text).not.toContain('.ts:');
    expect(logged.some((line) => line.includes('unhandled error') && line.includes(body.error.request_id))).toBe(true);
    expect(logged.join('\n')).not.toContain(key);
  });
});
