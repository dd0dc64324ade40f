import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkEndpointScope, checkModelScope, compileModelPattern, countedEndpoint, endpointOfPath } from '../../src/accounts/key-scope.ts';
import { findFormat, unregisterFormat } from '../../src/formats/index.ts';
import type { ApiKeyRecord } from '../../src/store/types.ts';
import { get, makeGateway, post, type TestGateway } from './make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Two providers serving the same bare id, so scopes can tell them apart. */
const TWO = {
  providers: { mock: { plugin: 'mock' }, other: { plugin: 'mock' } },
  routing: { models: { 'mock/echo': { fallbacks: ['other/echo'] } } },
};

const chat = (key: string, model: string) => post({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }, key);

async function errorOf(res: Response): Promise<ErrorBody['error']> {
  return ((await res.json()) as ErrorBody).error;
}

describe('model globs', () => {
  it('* spans any characters, slashes too; ? is one character; the rest is literal', () => {
    expect(compileModelPattern('openai/*').test('openai/gpt-4o')).toBe(true);
    expect(compileModelPattern('openai/*').test('other/gpt-4o')).toBe(false);
    expect(compileModelPattern('claude-*').test('claude-sonnet-4')).toBe(true);
    expect(compileModelPattern('gpt-4.1').test('gpt-4x1')).toBe(false);
    expect(compileModelPattern('gpt-?o').test('gpt-4o')).toBe(true);
    expect(compileModelPattern('*').test('any/thing')).toBe(true);
  });

  it('a pattern matches the provider/model id or the model id, and every candidate must match', () => {
    const key = { models: ['claude-*'] } as ApiKeyRecord;
    expect(() => checkModelScope(key, 'claude-x', [{ id: 'a/claude-x', upstreamId: 'claude-x' }, { id: 'b/claude-x', upstreamId: 'claude-x' }])).not.toThrow();
    const pinned = { models: ['a/*'] } as ApiKeyRecord;
    expect(() => checkModelScope(pinned, 'claude-x', [{ id: 'a/claude-x', upstreamId: 'claude-x' }, { id: 'b/claude-x', upstreamId: 'claude-x' }])).toThrow(/b\/claude-x/);
    // An unknown id: only the requested name can be matched.
    expect(() => checkModelScope(pinned, 'a/unknown', [])).not.toThrow();
    expect(() => checkModelScope(pinned, 'b/unknown', [])).toThrow(/b\/unknown/);
  });

  it('endpoint groups by path prefix, whole segments only', () => {
    expect(endpointOfPath('/v1/chat/completions')).toBe('chat');
    expect(endpointOfPath('/v1/responses/resp_1')).toBe('responses');
    expect(endpointOfPath('/v1/images/generations')).toBe('images');
    expect(endpointOfPath('/v1/audio/speech')).toBe('audio');
    expect(endpointOfPath('/v1/batches')).toBe('batches');
    // Anthropic's Message Batches are batches, though they sit below /v1/messages.
    expect(endpointOfPath('/v1/messages/batches/batch_1/results')).toBe('batches');
    // Gemini's too: the create shares the generateContent route's pattern.
    expect(endpointOfPath('/v1beta/models/gemini-2.5-flash:batchGenerateContent', 'POST')).toBe('batches');
    expect(endpointOfPath('/v1beta/batches/batch_1:cancel', 'POST')).toBe('batches');
    expect(endpointOfPath('/v1beta/models/gemini-2.5-flash:generateContent', 'POST')).toBe('gemini');
    expect(endpointOfPath('/v1/messages/count_tokens')).toBe('messages');
    expect(endpointOfPath('/v1/files/file_1/content')).toBe('files');
    // Gemini's Files API is the files group too, though it sits below the Gemini routes' /v1beta.
    expect(endpointOfPath('/upload/v1beta/files', 'POST')).toBe('files');
    expect(endpointOfPath('/v1beta/files/abc', 'GET')).toBe('files');
    expect(endpointOfPath('/download/v1beta/files/abc:download', 'GET')).toBe('files');
    // And under Google's /v1 (@google/genai 3's default): the upload and download roots are Google's alone.
    expect(endpointOfPath('/upload/v1/files', 'POST')).toBe('files');
    expect(endpointOfPath('/download/v1/files/abc:download', 'GET')).toBe('files');
    expect(endpointOfPath('/v1/files/abc', 'GET')).toBe('files');
    expect(endpointOfPath('/v1/batches/abc:cancel', 'POST')).toBe('batches');
    expect(endpointOfPath('/v1/models/gemini-2.5-flash:batchGenerateContent', 'POST')).toBe('batches');
    expect(endpointOfPath('/v1/messagesx')).toBeUndefined();
    expect(endpointOfPath('/v1/key')).toBeUndefined();
    expect(endpointOfPath('/v1/models')).toBeUndefined();
    // Gemini's stable path below OpenAI's model list: a POST there is Gemini's, a GET the model list's (no group).
    expect(endpointOfPath('/v1/models/oc/o4-mini:generateContent', 'POST')).toBe('gemini');
    expect(endpointOfPath('/v1beta/models/oc/o4-mini:generateContent', 'POST')).toBe('gemini');
    expect(endpointOfPath('/v1/models/oc/o4-mini', 'GET')).toBeUndefined();
    expect(endpointOfPath('/v1/models', 'GET')).toBeUndefined();
    expect(endpointOfPath('/v1/models', 'POST')).toBeUndefined();
  });

  it('two groups under one prefix are told apart by their routes: the URL as authentication sees it, the pattern as admission does', () => {
    const vertex = '/v1/projects/p/locations/us-east5/publishers';
    expect(endpointOfPath(`${vertex}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`, 'POST')).toBe('messages');
    expect(endpointOfPath(`${vertex}/google/models/gemini-2.5-flash:generateContent`, 'POST')).toBe('gemini');
    expect(endpointOfPath('/v1/projects/**', 'POST')).toBe('gemini');
    expect(endpointOfPath('/model/:model/invoke', 'POST')).toBe('messages');
    expect(endpointOfPath('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke', 'POST')).toBe('messages');
  });

  it("Gemini's Vertex URLs that its generateContent route does not read (count, :predict) are gemini's, not the Claude routes' sharing their prefix", () => {
    for (const root of ['/v1beta1', '/v1', '']) {
      const project = `${root}/projects/p/locations/us-central1`;
      expect(endpointOfPath(`${project}/publishers/google/models/gemini-2.5-flash:countTokens`, 'POST')).toBe('gemini');
      expect(endpointOfPath(`${project}/publishers/mock/models/image:predict`, 'POST')).toBe('gemini');
      expect(endpointOfPath(`${project}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`, 'POST')).toBe('messages');
    }
  });

  it("every format's model list and models.get are open to every key, as /v1/models is; a GET naming a POST method (its 405) stays the format's", () => {
    for (const root of ['/v1beta1', '/v1', '']) {
      const project = `${root}/projects/p/locations/us-central1`;
      expect(endpointOfPath(`${project}/publishers/google/models/gemini-2.5-flash`, 'GET')).toBeUndefined();
      expect(endpointOfPath(`${project}/publishers/google/models`, 'GET')).toBeUndefined();
      expect(endpointOfPath(`${project}/models`, 'GET')).toBeUndefined();
      expect(endpointOfPath(`${root}/publishers/google/models`, 'GET')).toBeUndefined();
      expect(endpointOfPath(`${project}/publishers/google/models/gemini-2.5-flash:generateContent`, 'GET')).toBe('gemini');
    }
    expect(endpointOfPath('/v1beta/models', 'GET')).toBeUndefined();
    expect(endpointOfPath('/v1beta/models', 'HEAD')).toBeUndefined();
    expect(endpointOfPath('/v1beta/models/mock/echo', 'GET')).toBeUndefined();
    expect(endpointOfPath('/v1beta/models/models%2Fmock%2Fecho', 'GET')).toBeUndefined();
    expect(endpointOfPath('/v1beta/models/mock/echo:generateContent', 'GET')).toBe('gemini');
    // Only the GET: the same paths asked by POST are the format's.
    expect(endpointOfPath('/v1beta/models', 'POST')).toBe('gemini');
    expect(endpointOfPath('/v1beta1/publishers/google/models/gemini-2.5-flash', 'POST')).toBe('gemini');
  });
});

describe('key scopes', () => {
  it('a key scoped to mock/* reaches mock models and gets 403 authorization_error for another provider', async () => {
    gw = await makeGateway({ providers: TWO.providers });
    const { key } = await gw.account({ key: { models: ['mock/*'] } });
    expect((await gw.fetch('/v1/chat/completions', chat(key, 'mock/echo'))).status).toBe(200);
    const res = await gw.fetch('/v1/chat/completions', chat(key, 'other/echo'));
    expect(res.status).toBe(403);
    const error = await errorOf(res);
    expect(error.code).toBe('authorization_error');
    expect(error.message).toContain("'other/echo'");
    expect(error.details).toEqual({ model: 'other/echo', not_allowed: 'other/echo', allowed_models: ['mock/*'] });
    // A bare id served by both providers could land on the other one: refused, naming it.
    const bare = await gw.fetch('/v1/chat/completions', chat(key, 'echo'));
    expect(bare.status).toBe(403);
    expect((await errorOf(bare)).details).toMatchObject({ model: 'echo', not_allowed: 'other/echo' });
  });

  it('a configured fallback outside the scope is refused too', async () => {
    gw = await makeGateway(TWO);
    const { key } = await gw.account({ key: { models: ['mock/*'] } });
    const res = await gw.fetch('/v1/chat/completions', chat(key, 'mock/echo'));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toContain("may be served by 'other/echo'");
    const wide = await gw.account({ key: { models: ['echo'] } });
    expect((await gw.fetch('/v1/chat/completions', chat(wide.key, 'mock/echo'))).status).toBe(200);
  });

  it('the refusal carries the rate-limit headers and counts against the window, like other admission refusals', async () => {
    gw = await makeGateway({ providers: TWO.providers });
    const { key } = await gw.account({ key: { models: ['mock/*'] }, rpm: 5 });
    const res = await gw.fetch('/v1/chat/completions', chat(key, 'other/echo'));
    expect(res.status).toBe(403);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('a key without images gets 403 on images and messages, and still reads /v1/key and /v1/models', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ key: { endpoints: ['chat', 'responses'] } });
    expect((await gw.fetch('/v1/chat/completions', chat(key, 'mock/echo'))).status).toBe(200);
    const images = await gw.fetch('/v1/images/generations', post({ model: 'mock/image', prompt: 'a cat' }, key));
    expect(images.status).toBe(403);
    const error = await errorOf(images);
    expect(error).toMatchObject({ code: 'authorization_error', details: { endpoint: 'images', allowed_endpoints: ['chat', 'responses'] } });
    const messages = await gw.fetch('/v1/messages', post({ model: 'mock/echo', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }, key, { 'anthropic-version': '2023-06-01' }));
    expect(messages.status).toBe(403);
    expect((await messages.json()) as { type: string }).toMatchObject({ type: 'error' });
    const view = await gw.fetch('/v1/key', get(key));
    expect(view.status).toBe(200);
    expect(((await view.json()) as { data: { endpoints: string[] } }).data.endpoints).toEqual(['chat', 'responses']);
    expect((await gw.fetch('/v1/models', get(key))).status).toBe(200);
    // Gemini's model list and models.get, AI Studio's and Vertex's, as Google's SDKs ask them: open as /v1/models is.
    const goog = { method: 'GET', headers: { 'x-goog-api-key': key } };
    for (const url of ['/v1beta/models', '/v1beta/models/mock/echo', '/v1beta1/publishers/google/models', '/v1beta1/projects/p/locations/us-central1/publishers/google/models/mock/echo']) {
      expect((await gw.fetch(url, goog)).status, url).toBe(200);
      expect((await gw.fetch(url, { ...goog, method: 'HEAD' })).status, `HEAD ${url}`).toBe(200);
    }
  });

  it('a scope change applies to the next request', async () => {
    gw = await makeGateway({ providers: TWO.providers });
    const { key, keyId } = await gw.account();
    expect((await gw.fetch('/v1/chat/completions', chat(key, 'other/echo'))).status).toBe(200);
    await gw.gateway.deps.store.keys.update(keyId, { models: ['mock/*'] });
    expect((await gw.fetch('/v1/chat/completions', chat(key, 'other/echo'))).status).toBe(403);
    await gw.gateway.deps.store.keys.update(keyId, { models: null });
    expect((await gw.fetch('/v1/chat/completions', chat(key, 'other/echo'))).status).toBe(200);
  });
});

describe('last use', () => {
  it('is recorded on the key in memory at the first request, without waiting for a write', async () => {
    gw = await makeGateway();
    const { key, keyId } = await gw.account();
    expect((await gw.gateway.deps.store.keys.get(keyId))?.lastUsedAt ?? null).toBeNull();
    const before = Date.now();
    expect((await gw.fetch('/v1/key', get(key))).status).toBe(200);
    const used = (await gw.gateway.deps.store.keys.get(keyId))?.lastUsedAt;
    expect(used).toBeGreaterThanOrEqual(before);
  });
});

// Bedrock's CountTokens (`POST /model/{id}/count-tokens`) holds an InvokeModel body (input.invokeModel) or, once a provider
// uses the bedrock plugin, a Converse body (input.converse): it is scoped as the operation whose body it counts (docs/api-decisions.md).
describe('the endpoint scope of a count that holds another format’s body', () => {
  const BEDROCK = { providers: { mock: { plugin: 'mock' }, bedrock: { plugin: 'bedrock', region: 'us-east-1', apiKey: 'unused', models: [] } } };
  const COUNT = `/model/${encodeURIComponent('mock/echo')}/count-tokens`;
  const converse = { input: { converse: { messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }] } } };
  const invokeModel = { input: { invokeModel: { body: Buffer.from(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 1, messages: [{ role: 'user', content: 'Weather in Paris?' }] })).toString('base64') } } };
  const wasRegistered = findFormat('bedrock-converse') !== undefined;
  afterAll(() => {
    // The plugin's format stays registered after its gateway closed: leave the fork as it was.
    if (!wasRegistered) unregisterFormat('bedrock-converse');
  });

  it('input.converse is the bedrock-converse group, input.invokeModel the messages group; before the body, a key scoped to either passes the route', async () => {
    gw = await makeGateway(BEDROCK);
    expect(countedEndpoint(COUNT, converse)).toBe('bedrock-converse');
    expect(countedEndpoint(COUNT, invokeModel)).toBe('messages');
    expect(countedEndpoint('/v1/messages/count_tokens', {})).toBe('messages');
    for (const path of [COUNT, '/model/:model/count-tokens']) {
      expect(() => checkEndpointScope({ endpoints: ['bedrock-converse'] } as ApiKeyRecord, path, 'POST')).not.toThrow();
      expect(() => checkEndpointScope({ endpoints: ['messages'] } as ApiKeyRecord, path, 'POST')).not.toThrow();
      expect(() => checkEndpointScope({ endpoints: ['chat'] } as ApiKeyRecord, path, 'POST')).toThrow(/may not call the messages or bedrock-converse endpoints/);
    }
    // Converse's and InvokeModel's own routes stay one group each.
    expect(() => checkEndpointScope({ endpoints: ['bedrock-converse'] } as ApiKeyRecord, '/model/mock%2Fecho/invoke', 'POST')).toThrow(/messages endpoints/);
    expect(() => checkEndpointScope({ endpoints: ['messages'] } as ApiKeyRecord, '/model/mock%2Fecho/converse', 'POST')).toThrow(/bedrock-converse endpoints/);
  });

  it('a bedrock-converse key counts input.converse, not input.invokeModel; a messages key the other way round; a key with neither is refused before its body is read', async () => {
    gw = await makeGateway(BEDROCK);
    const count = async (key: string, body: unknown) => {
      const res = await gw!.fetch(COUNT, post(body, key));
      return { status: res.status, type: res.headers.get('x-amzn-errortype'), body: (await res.json()) as Record<string, any> };
    };
    const converseKey = (await gw.account({ key: { endpoints: ['bedrock-converse'] } })).key;
    const messagesKey = (await gw.account({ key: { endpoints: ['messages'] } })).key;
    const bothKey = (await gw.account({ key: { endpoints: ['messages', 'bedrock-converse'] } })).key;
    const chatKey = (await gw.account({ key: { endpoints: ['chat'] } })).key;
    const counted = await count(converseKey, converse);
    expect(counted).toMatchObject({ status: 200, body: { inputTokens: expect.any(Number) } });
    expect(counted.body.inputTokens).toBeGreaterThan(0);
    expect(await count(messagesKey, invokeModel)).toMatchObject({ status: 200, body: { inputTokens: expect.any(Number) } });
    for (const body of [converse, invokeModel]) expect((await count(bothKey, body)).status).toBe(200);
    const invokeByConverse = await count(converseKey, invokeModel);
    expect(invokeByConverse).toMatchObject({ status: 403, type: 'AccessDeniedException', body: { error: { code: 'authorization_error', details: { endpoint: 'messages', allowed_endpoints: ['bedrock-converse'] } } } });
    const converseByMessages = await count(messagesKey, converse);
    expect(converseByMessages).toMatchObject({ status: 403, type: 'AccessDeniedException', body: { message: expect.stringMatching(/may not call the bedrock-converse endpoints/), error: { details: { endpoint: 'bedrock-converse' } } } });
    // Refused at the route, whatever the body (even one that is not JSON).
    const res = await gw.fetch(COUNT, { method: 'POST', headers: { authorization: `Bearer ${chatKey}`, 'content-type': 'application/json' }, body: 'not json' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).error.details).toMatchObject({ endpoint: 'messages', allowed_endpoints: ['chat'] });
  });
});

// Gemini's own embedding and image methods (`…:embedContent`, `…:batchEmbedContents`, Imagen's `…:predict`; AI Studio's and
// Vertex's paths) run as `/v1/embeddings` and `/v1/images/generations` do: a key scoped to the gemini group or to the media
// group calls them, a key with neither gets 403 naming the URL and both groups (docs/api-decisions.md).
describe("the endpoint scope of Gemini's embedding and image methods", () => {
  const VERTEX = '/v1beta1/projects/p/locations/us-central1/publishers/mock/models';
  const scoped = (...endpoints: string[]) => ({ endpoints }) as ApiKeyRecord;
  const EMBEDDINGS = '/v1/embeddings';
  const GENERATIONS = '/v1/images/generations';
  // [URL, the media route it is admitted on, that route's group]
  const FACES: Array<[string, string, string]> = [
    ['/v1beta/models/mock/embed:embedContent', EMBEDDINGS, 'embeddings'],
    ['/v1/models/mock/embed:batchEmbedContents', EMBEDDINGS, 'embeddings'],
    [`${VERTEX}/embed:embedContent`, EMBEDDINGS, 'embeddings'],
    [`${VERTEX}/embed:predict`, EMBEDDINGS, 'embeddings'],
    ['/v1beta/models/mock/image:predict', GENERATIONS, 'images'],
    [`${VERTEX}/image:predict`, GENERATIONS, 'images'],
  ];

  it('a key scoped to gemini or to the media group passes authentication (the URL) and admission (the media route, called at the URL)', () => {
    for (const [url, route, group] of FACES) {
      for (const key of [scoped('gemini'), scoped(group), scoped('chat', group)]) {
        expect(() => checkEndpointScope(key, url, 'POST')).not.toThrow();
        expect(() => checkEndpointScope(key, route, 'POST', url)).not.toThrow();
      }
    }
  });

  it('a key with neither gets 403 naming the URL it called and both groups, at authentication and at admission', () => {
    for (const [url, route, group] of FACES) {
      const other = group === 'images' ? 'embeddings' : 'images';
      // Admission knows which operation it is: the other media group is not enough, even on Vertex's :predict that both faces read.
      for (const [path, called] of [[route, url], ...(url.endsWith(':predict') && url.startsWith(VERTEX) ? [] : [[url, undefined]])] as Array<[string, string | undefined]>) {
        let error: unknown;
        try {
          checkEndpointScope(scoped('chat', other), path, 'POST', called);
        } catch (thrown) {
          error = thrown;
        }
        expect(error, `${path} ${called}`).toMatchObject({
          code: 'authorization_error',
          message: `This API key may not call the gemini or ${group} endpoints (${url}, which any one of these groups allows); it is scoped to: chat, ${other}.`,
          details: { endpoint: 'gemini', endpoints: ['gemini', group], allowed_endpoints: ['chat', other] },
        });
      }
    }
    // Vertex's :predict is read by both faces (its model says which): before admission, either media group passes.
    expect(() => checkEndpointScope(scoped('chat'), `${VERTEX}/embed:predict`, 'POST')).toThrow(/gemini, embeddings or images endpoints/);
    expect(() => checkEndpointScope(scoped('images'), `${VERTEX}/embed:predict`, 'POST')).not.toThrow();
  });

  it('the media routes called as themselves, and the other Gemini methods, keep their one group', () => {
    expect(() => checkEndpointScope(scoped('gemini'), EMBEDDINGS, 'POST')).toThrow(/may not call the embeddings endpoints \(\/v1\/embeddings\)/);
    expect(() => checkEndpointScope(scoped('gemini'), GENERATIONS, 'POST', GENERATIONS)).toThrow(/may not call the images endpoints/);
    expect(() => checkEndpointScope(scoped('embeddings', 'images'), '/v1beta/models/mock/embed:generateContent', 'POST')).toThrow(/may not call the gemini endpoints/);
    expect(() => checkEndpointScope(scoped('embeddings'), '/v1beta/models/mock/embed:countTokens', 'POST')).toThrow(/may not call the gemini endpoints/);
    // A GET there is the 405 of a Gemini method: no operation runs, so only the gemini group.
    expect(() => checkEndpointScope(scoped('embeddings'), '/v1beta/models/mock/embed:embedContent', 'GET')).toThrow(/may not call the gemini endpoints/);
  });

  it('through the gateway: gemini and embeddings keys embed, gemini and images keys make images; a key with neither is refused', async () => {
    gw = await makeGateway();
    const keys = Object.fromEntries(await Promise.all(['gemini', 'embeddings', 'images', 'chat'].map(async (group) => [group, (await gw!.account({ key: { endpoints: [group] } })).key] as const)));
    const call = async (group: string, url: string, body: unknown) => {
      const res = await gw!.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': keys[group] }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: { status?: string; message?: string } } & Record<string, unknown> };
    };
    const embed = { content: { parts: [{ text: 'hello' }] } };
    const vertexEmbed = { instances: [{ content: 'hello' }] };
    const draw = { instances: [{ prompt: 'a red cube' }] };
    for (const group of ['gemini', 'embeddings']) {
      expect(await call(group, '/v1beta/models/mock/embed:embedContent', embed)).toMatchObject({ status: 200, body: { embedding: { values: expect.any(Array) } } });
      expect(await call(group, `${VERTEX}/embed:predict`, vertexEmbed)).toMatchObject({ status: 200, body: { predictions: [{ embeddings: { values: expect.any(Array) } }] } });
    }
    for (const group of ['gemini', 'images']) {
      expect(await call(group, '/v1beta/models/mock/image:predict', draw)).toMatchObject({ status: 200, body: { predictions: [{ bytesBase64Encoded: expect.any(String) }] } });
      expect(await call(group, `${VERTEX}/image:predict`, draw)).toMatchObject({ status: 200, body: { predictions: [{ bytesBase64Encoded: expect.any(String) }] } });
    }
    const refused = (url: string, groups: string) => ({ status: 403, body: { error: { status: 'PERMISSION_DENIED', message: expect.stringContaining(`may not call the ${groups} endpoints (${url}, which any one of these groups allows)`) } } });
    expect(await call('images', '/v1beta/models/mock/embed:embedContent', embed)).toMatchObject(refused('/v1beta/models/mock/embed:embedContent', 'gemini or embeddings'));
    expect(await call('chat', '/v1beta/models/mock/embed:embedContent', embed)).toMatchObject(refused('/v1beta/models/mock/embed:embedContent', 'gemini or embeddings'));
    expect(await call('embeddings', '/v1beta/models/mock/image:predict', draw)).toMatchObject(refused('/v1beta/models/mock/image:predict', 'gemini or images'));
    // Vertex's :predict: the model tells the operation, so an images key is refused on an embedding model at admission, and the other way round.
    expect(await call('images', `${VERTEX}/embed:predict`, vertexEmbed)).toMatchObject(refused(`${VERTEX}/embed:predict`, 'gemini or embeddings'));
    expect(await call('embeddings', `${VERTEX}/image:predict`, draw)).toMatchObject(refused(`${VERTEX}/image:predict`, 'gemini or images'));
    // The gemini key still cannot call the media routes themselves.
    const res = await gw.fetch(EMBEDDINGS, post({ model: 'mock/embed', input: 'hello' }, keys.gemini));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).details).toMatchObject({ endpoint: 'embeddings', allowed_endpoints: ['gemini'] });
  });

  it('the URL cannot pick the laxer group: an embeddings key never generates, a gemini key never reaches the media routes', async () => {
    gw = await makeGateway();
    const keys = Object.fromEntries(await Promise.all(['gemini', 'embeddings'].map(async (group) => [group, (await gw!.account({ key: { endpoints: [group] } })).key] as const)));
    const call = async (group: string, url: string, body: unknown) => {
      const res = await gw!.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': keys[group], authorization: `Bearer ${keys[group]}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const generate = { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] };
    // The method is the path's last colon, decoded: an encoded colon or a query that names :embedContent is an embedding call or a 403, never a generation.
    for (const url of [
      '/v1beta/models/mock/echo:generateContent%3AembedContent',
      '/v1beta/models/mock/echo%3AgenerateContent:embedContent',
      '/v1beta/models/mock/echo:streamGenerateContent?alt=sse&x=:embedContent',
      '/v1beta/models/mock/echo:embedContent/../../mock/echo:generateContent',
      `${VERTEX}/echo:generateContent?x=:predict`,
      '/v1beta/models/mock/echo:countTokens?x=:embedContent',
    ]) {
      const { status, body } = await call('embeddings', url, generate);
      expect(status, url).not.toBe(200);
      expect(body, url).not.toHaveProperty('candidates');
      expect(body, url).not.toHaveProperty('totalTokens');
    }
    // The media routes, spelled otherwise or with a Gemini URL in the query, stay their own group's.
    for (const url of [`${EMBEDDINGS}/`, `${EMBEDDINGS}?x=/v1beta/models/mock/embed:embedContent`]) {
      expect(await call('gemini', url, { model: 'mock/embed', input: 'hello' }), url).toMatchObject({ status: 403 });
    }
    expect(await call('gemini', `${GENERATIONS}?x=/v1beta/models/mock/image:predict`, { model: 'mock/image', prompt: 'a cube' })).toMatchObject({ status: 403 });
  });
});
