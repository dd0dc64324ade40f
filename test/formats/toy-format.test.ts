/**
 * Done-when of issue 21 §2: a fourth wire format from the test tree (test/formats/toy: one
 * folder; the registry line is its plugin's `wireFormats`) works end to end through the real
 * app — inbound and upstream, passthrough and converted with each of the other three, JSON and
 * streamed — and every core table (routes, credentials, key scopes, metric labels, generation
 * routes, config and plugin format checks, unknown paths of its clients and of its cloud) knows it without an edit. The toy streams binary
 * frames and reads its model from the path, so SSE and a body `model` are not assumed anywhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { bootstrapDataDir } from '../../src/app/bootstrap.ts';
import { parseConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { endpointOfPath, keyEndpoints } from '../../src/accounts/key-scope.ts';
import { isGenerationRoute } from '../../src/limits/classify-route.ts';
import { apiFormatOfRoute, operationOfRoute } from '../../src/server/observe-route.ts';
import { cloudOfRoute, registerFormat, wireFormatIds, type FormatDefinition } from '../../src/formats/index.ts';
import { parseSse } from '../../src/sse/index.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';
import type { FakeUpstream } from '../helpers/fake-upstream.ts';
import { fixtureUpstream, toyProviders, toyRecords } from './toy-helpers.ts';
import { toyFormat } from './toy/index.ts';

type Json = Record<string, any>;

describe('a fourth wire format from the test tree', () => {
  let gateway: Gateway;
  let key: string;
  let messages: FakeUpstream;
  let responses: FakeUpstream;

  beforeAll(async () => {
    messages = await fixtureUpstream('messages');
    responses = await fixtureUpstream('responses');
    gateway = await createGateway({
      config: parseConfig({ providers: toyProviders('./test/formats/toy/plugin.ts', messages, responses) }),
      configDir: REPO_ROOT,
      dataDir: path.join(tempDir(), 'data'),
      log: createLogger('error', () => undefined),
    });
    key = (await bootstrapDataDir(gateway.deps.store, gateway.deps.clock))!.key;
  });
  afterAll(async () => {
    await gateway?.close();
    await messages?.close();
    await responses?.close();
  });

  const toyCall = (model: string, stream: boolean, init: { body?: unknown; headers?: Record<string, string>; query?: string } = {}) =>
    gateway.app.request(`/toy/v1/chat/${model}:${stream ? 'stream' : 'talk'}${init.query ?? ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(init.headers ?? { 'x-toy-key': key }) },
      body: JSON.stringify(init.body ?? { say: [{ who: 'rules', text: 'be brief' }, { who: 'user', text: 'hello toy' }] }),
    });

  // toy/toy-1 is the passthrough; the others convert toy ↔ chat, messages, responses.
  const UPSTREAMS = [
    { model: 'toy/toy-1', format: 'toy', reply: 'toy heard: hello toy' },
    { model: 'mock/echo', format: 'chat', reply: 'hello toy' },
    { model: 'anth/claude-x', format: 'messages', reply: undefined },
    { model: 'resp/gpt-resp', format: 'responses', reply: undefined },
  ];

  for (const upstream of UPSTREAMS) {
    it(`toy client → ${upstream.format} upstream, JSON`, async () => {
      const res = await toyCall(upstream.model, false);
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.why).toBe('done');
      if (upstream.reply) expect(body.reply).toBe(upstream.reply);
      else expect(body.reply.length).toBeGreaterThan(0);
      expect(body.used.in).toBeGreaterThan(0);
    });

    it(`toy client → ${upstream.format} upstream, streamed in binary frames`, async () => {
      const res = await toyCall(upstream.model, true);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-toy-frames');
      const records = toyRecords(Buffer.from(await res.arrayBuffer()));
      expect(records[0].event).toBe('begin');
      expect(records.at(-1)).toMatchObject({ event: 'end', data: { why: 'done' } });
      const text = records.filter((r) => r.event === 'piece').map((r) => r.data.text).join('');
      if (upstream.reply) expect(text).toBe(upstream.reply);
      else expect(text.length).toBeGreaterThan(0);
    });
  }

  const CLIENTS = [
    { format: 'chat', path: '/v1/chat/completions', body: (stream: boolean) => ({ model: 'toy/toy-1', stream, messages: [{ role: 'user', content: 'hi from chat' }] }), text: (b: Json) => b.choices[0].message.content, last: 'data: [DONE]' },
    { format: 'messages', path: '/v1/messages', body: (stream: boolean) => ({ model: 'toy/toy-1', stream, max_tokens: 50, messages: [{ role: 'user', content: 'hi from chat' }] }), text: (b: Json) => b.content[0].text, last: 'message_stop' },
    { format: 'responses', path: '/v1/responses', body: (stream: boolean) => ({ model: 'toy/toy-1', stream, store: false, input: 'hi from chat' }), text: (b: Json) => b.output.at(-1).content[0].text, last: 'response.completed' },
  ];

  for (const client of CLIENTS) {
    for (const stream of [false, true]) {
      it(`${client.format} client → toy upstream, ${stream ? 'streamed' : 'JSON'}`, async () => {
        const res = await gateway.app.request(client.path, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify(client.body(stream)),
        });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        if (!stream) {
          expect(client.text(JSON.parse(text) as Json)).toBe('toy heard: hi from chat');
          return;
        }
        expect(res.headers.get('content-type')).toContain('text/event-stream');
        expect(text).toContain(client.last);
        expect(text).toContain('heard:');
        expect(parseSse(text).length).toBeGreaterThan(3);
      });
    }
  }

  it('reads the key from the headers and query names the format declares', async () => {
    expect((await toyCall('toy/toy-1', false, { headers: {}, query: `?toy_key=${key}` })).status).toBe(200);
    const refused = await toyCall('toy/toy-1', false, { headers: {} });
    expect(refused.status).toBe(401);
    // Errors come in the toy's own shape, beside the spec envelope.
    expect(((await refused.json()) as Json).trouble.code).toBe('authentication_error');
  });

  it('answers an invalid toy body with the toy error shape, and an unknown path action with 404', async () => {
    const bad = await toyCall('toy/toy-1', false, { body: { say: [] } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Json).trouble.code).toBe('validation_error');
    const res = await gateway.app.request('/toy/v1/chat/toy/toy-1:dance', { method: 'POST', headers: { 'x-toy-key': key }, body: '{}' });
    expect(res.status).toBe(404);
  });

  it("answers an unknown path under its clients' prefix in its own error shape", async () => {
    const res = await gateway.app.request('/toy/v2/chat/toy/toy-1:talk', { method: 'POST', headers: { 'x-toy-key': key }, body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).trouble).toEqual({ code: 'not_found', message: 'No route for POST /toy/v2/chat/toy/toy-1:talk.' });
  });

  it("answers a path of its cloud's API that nothing serves as that cloud's SDKs read an error, and names the format a route there needs", async () => {
    for (const [method, url] of [['POST', '/toy-cloud/jobs/1'], ['GET', '/toy-cloud']]) {
      const res = await gateway.app.request(url, { method, headers: { 'x-toy-key': key } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException');
      expect(res.headers.get('x-toy-cloud-request-id')).toBe(res.headers.get('x-request-id'));
      expect(((await res.json()) as Json).message).toBe(`No route for ${method} ${url}.`);
    }
    const batch = await gateway.app.request('/toy-cloud/toy-1/batch', { method: 'POST', headers: { 'x-toy-key': key }, body: '{}' });
    expect(((await batch.json()) as Json).message).toBe('No route for POST /toy-cloud/toy-1/batch. The toy cloud batch route comes with the toy-batch plugin.');
    // Not a path of the cloud's: the plain 404.
    const beside = await gateway.app.request('/toy-cloudy', { method: 'POST', headers: { 'x-toy-key': key } });
    expect(beside.status).toBe(404);
    expect(beside.headers.get('x-amzn-errortype')).toBeNull();
    expect(beside.headers.get('x-toy-cloud-request-id')).toBeNull();
  });

  it("answers on its route under its cloud's paths as the cloud's SDKs read errors and request ids, said once on the cloud", async () => {
    const served = await gateway.app.request('/toy-cloud/chat/toy/toy-1:talk', { method: 'POST', headers: { 'x-toy-key': key }, body: JSON.stringify({ say: [{ who: 'user', text: 'from the cloud' }] }) });
    expect(served.status).toBe(200);
    expect(((await served.json()) as Json).reply).toBe('toy heard: from the cloud');
    expect(served.headers.get('x-toy-cloud-request-id')).toBe(served.headers.get('x-request-id'));
    const refused = await gateway.app.request('/toy-cloud/chat/toy/toy-1:talk', { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-amzn-errortype')).toBe('AccessDeniedException');
    expect(refused.headers.get('x-toy-cloud-request-id')).toBe(refused.headers.get('x-request-id'));
    const body = (await refused.json()) as Json;
    expect(body.trouble.code).toBe('authentication_error');
    expect(body.message).toBe(body.trouble.message);
    // Its route off the cloud: the toy's own error, no cloud headers.
    const own = await toyCall('toy/toy-1', false, { headers: {} });
    expect(own.status).toBe(401);
    expect(own.headers.get('x-amzn-errortype')).toBeNull();
    expect(own.headers.get('x-toy-cloud-request-id')).toBeNull();
    expect(((await own.json()) as Json).message).toBeUndefined();
  });

  it('reads the cloud of a route pattern from the literal segments before its first parameter', () => {
    expect(cloudOfRoute(toyFormat, '/toy-cloud/chat/**')?.requestIdHeader).toBe('x-toy-cloud-request-id');
    expect(cloudOfRoute(toyFormat, '/toy-cloud')).toBeDefined();
    expect(cloudOfRoute(toyFormat, '/toy/v1/chat/**')).toBeUndefined();
    expect(cloudOfRoute(toyFormat, '/toy-cloudy/**')).toBeUndefined();
    // A parameter first could be any path, the cloud's or not.
    expect(cloudOfRoute(toyFormat, '/:root/chat')).toBeUndefined();
    expect(cloudOfRoute(toyFormat, '/**')).toBeUndefined();
  });

  it("refuses a cloud whose paths are not path roots (a plugin's format is not ours)", () => {
    const bad = (clouds: unknown) => () => registerFormat({ ...toyFormat, id: 'toy-bad-cloud', codec: { ...toyFormat.codec, format: 'toy-bad-cloud' }, routes: [], clouds } as FormatDefinition);
    expect(bad([{ paths: ['/toy-cloud/'] }])).toThrow("format 'toy-bad-cloud': a cloud's paths are path roots such as '/model' (no trailing '/')");
    expect(bad([{ paths: [] }])).toThrow('path roots');
    expect(bad([{ paths: ['/x'], otherFormats: [{ format: 'y', method: 'POST', pattern: '^/x', missing: 'z' }] }])).toThrow('a RegExp pattern');
    expect(wireFormatIds()).not.toContain('toy-bad-cloud');
  });

  it('is in every table the core derives from the registry (no table edited by hand)', () => {
    expect(wireFormatIds()).toContain('toy');
    expect(keyEndpoints()).toContain('toy');
    expect(endpointOfPath('/toy/v1/chat/toy/toy-1:talk')).toBe('toy');
    expect(isGenerationRoute('POST', '/toy/v1/chat/mock/echo:stream')).toBe(true);
    expect(operationOfRoute('/toy/v1/chat/**')).toBe('chat');
    expect(apiFormatOfRoute('/toy/v1/chat/**', 'toy')).toBe('toy');
  });

  it('needs no test table edited either when it is built in (no test keys a table by every built-in format but some)', () => {
    // docs/adding-a-format.md, followed with a copy of the toy in BUILTIN: `npm run typecheck` failed in the
    // conversion matrix's tables, keyed by every built-in format but 'completions' (an Exclude), which lacked the new id.
    // A test names the formats it covers (`Extract<BuiltinFormat, 'chat' | …>`), so a new one is added by choice.
    const tests = path.join(REPO_ROOT, 'test');
    const exclusion = new RegExp(['Exclude', '<BuiltinFormat\\b'].join(''));
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(path.join(tests, dir), { withFileTypes: true })) {
        if (entry.isDirectory() && entry.name !== 'node_modules') walk(path.join(dir, entry.name));
        else if (entry.isFile() && /\.tsx?$/.test(entry.name)) files.push(path.join(dir, entry.name));
      }
    };
    walk('');
    expect(files.filter((f) => exclusion.test(fs.readFileSync(path.join(tests, f), 'utf8')))).toEqual([]);
  });
});
