/**
 * The plugin kit's request patch (issue 21 §4): a provider's `patchRequest` reaches the bytes
 * sent on a passthrough exactly as on a conversion, and every byte it does not name stays the
 * client's. The provider here is shaped like Claude on Vertex AI (no `model` in the body, an
 * `anthropic_version`); its upstream refuses a body that was not patched.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { bootstrapDataDir } from '../../src/app/bootstrap.ts';
import { parseConfig } from '../../src/config/index.ts';
import { GatewayError } from '../../src/errors/index.ts';
import { patchCall } from '../../src/pipeline/index.ts';
import type { ChatCall, ProviderInstance } from '../../src/plugin-kit/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';

type Json = Record<string, any>;

describe('patchCall', () => {
  const call: Omit<ChatCall, 'signal'> = { format: 'messages', model: 'claude-x', stream: false, headers: {}, body: { model: 'claude-x', max_tokens: 5 }, rawBody: '{"model":"claude-x", "max_tokens":5.0}' };

  it('leaves a call alone when the provider has no patch or returns none', () => {
    expect(patchCall({}, 'p', 'chat', call)).toBe(call);
    expect(patchCall({ patchRequest: () => undefined }, 'p', 'chat', call)).toBe(call);
  });

  it('applies the patch to the parsed body and to the bytes alike, and tells the hook what it patches', () => {
    const seen: unknown[] = [];
    const instance: ProviderInstance = { patchRequest: (context) => (seen.push(context), { remove: ['model'], set: { anthropic_version: 'v' } }) };
    const patched = patchCall(instance, 'p', 'countTokens', call);
    expect(patched.rawBody).toBe('{"max_tokens":5.0,"anthropic_version":"v"}');
    expect(patched.body).toEqual({ max_tokens: 5, anthropic_version: 'v' });
    expect(call.body).toEqual({ model: 'claude-x', max_tokens: 5 }); // the caller's call is not edited
    expect(seen).toEqual([{ purpose: 'countTokens', format: 'messages', model: 'claude-x', stream: false, body: call.body }]);
  });

  it('refuses a patch of the wrong shape with an internal error naming the provider (never ignores it)', () => {
    const bad = { patchRequest: () => ({ remove: 'model' }) } as unknown as ProviderInstance;
    expect(() => patchCall(bad, 'vertex', 'chat', call)).toThrow(GatewayError);
    expect(() => patchCall(bad, 'vertex', 'chat', call)).toThrow(/'vertex' returned a request patch/);
  });
});

describe('a request patch through the app', () => {
  let gateway: Gateway;
  let key: string;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const body = request.json ?? {};
      if ('model' in body || body.anthropic_version !== 'vertex-2023-10-16') return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `unpatched body: ${request.body}` } } };
      return request.path.endsWith(':streamRawPredict')
        ? { headers: { 'content-type': 'text/event-stream' }, sse: [readFixture('matrix/messages/text.sse.txt')] }
        : { json: readJsonFixture('matrix/messages/text.json') };
    });
    gateway = await createGateway({
      config: parseConfig({ providers: { vertex: { plugin: './test/fixtures/plugins/patching-plugin.ts', baseURL: upstream.url, models: ['claude-x'] } } }),
      configDir: REPO_ROOT,
      dataDir: path.join(tempDir(), 'data'),
      log: createLogger('error', () => undefined),
    });
    key = (await bootstrapDataDir(gateway.deps.store, gateway.deps.clock))!.key;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const post = (route: string, body: string) =>
    gateway.app.request(route, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body });

  for (const stream of [false, true]) {
    it(`is applied on a passthrough (Messages client), ${stream ? 'streamed' : 'JSON'}: only the patched fields differ from the client's bytes`, async () => {
      // Spellings a re-serialisation would change: an escape, a number with a fraction, spaces.
      const rest = `"max_tokens": 50.0, "stream": ${stream}, "messages": [{"role": "user", "content": "caf\\u00e9"}]`;
      const res = await post('/v1/messages', `{"model": "vertex/claude-x", ${rest}}`);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text).toContain('wörld');
      const sent = upstream.requests.at(-1)!;
      expect(sent.path).toBe(`/v1/publishers/anthropic/models/claude-x:${stream ? 'streamRawPredict' : 'rawPredict'}`);
      expect(sent.body).toBe(`{${rest},"anthropic_version":"vertex-2023-10-16"}`);
    });

    it(`is applied on a conversion (Chat client), ${stream ? 'streamed' : 'JSON'}`, async () => {
      const res = await post('/v1/chat/completions', JSON.stringify({ model: 'vertex/claude-x', stream, messages: [{ role: 'user', content: 'hi' }] }));
      const text = await res.text();
      expect(res.status, text).toBe(200);
      if (stream) expect(text).toContain('data: [DONE]');
      else expect((JSON.parse(text) as Json).choices[0].message.content).toBe('Héllo wörld 👋!');
      const sent = upstream.requests.at(-1)!.json!;
      expect(sent).not.toHaveProperty('model');
      expect(sent).toMatchObject({ anthropic_version: 'vertex-2023-10-16', messages: [{ role: 'user' }] });
    });
  }
});
