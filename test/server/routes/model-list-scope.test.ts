/**
 * A key scoped to some models sees only those in every format's model list (as an OpenAI project
 * key or an OpenRouter key limited to some models does): OpenAI's `GET /v1/models`, Anthropic's
 * (the same path with `anthropic-version`), Gemini's `GET /v1beta/models` and Vertex AI's
 * publisher models. A model whose configured fallback lies outside the scope is not listed either:
 * asking it would be refused. A key without a scope still sees every model. A one-model read of a
 * model it may not see is answered as for an unknown model, in each format's own shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';

let gw: TestGateway;
let scoped: string;
let open: string;
beforeAll(async () => {
  gw = await makeGateway({
    providers: { mock: { plugin: 'mock' }, other: { plugin: 'mock', models: [{ id: 'echo' }, { id: 'think' }, { id: 'plain' }] } },
    routing: { models: { 'other/echo': { fallbacks: ['other/think'] } } },
  });
  ({ key: scoped } = await gw.account({ key: { models: ['mock/*', 'other/plain', 'other/echo'] } }));
  ({ key: open } = await gw.account());
});
afterAll(() => gw.close());

async function listed(path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await gw.fetch(path, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const ids = (body: Record<string, unknown>, field: string, key: 'id' | 'name') => (body[field] as Array<Record<string, string>>).map((m) => m[key]);

describe('a key scoped to some models lists only those', () => {
  it("OpenAI's /v1/models", async () => {
    const { status, body } = await listed('/v1/models', { authorization: `Bearer ${scoped}` });
    expect(status).toBe(200);
    const seen = ids(body, 'data', 'id');
    expect(seen).toEqual(expect.arrayContaining(['mock/echo', 'mock/image', 'other/plain']));
    expect(seen.filter((id) => !id.startsWith('mock/'))).toEqual(['other/plain']);
    const all = ids((await listed('/v1/models', { authorization: `Bearer ${open}` })).body, 'data', 'id');
    expect(all).toEqual(expect.arrayContaining(['mock/echo', 'other/echo', 'other/think', 'other/plain']));
    // other/echo is in the scope but its fallback other/think is not: asking it is refused, so it is not listed.
    const asked = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${scoped}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'other/echo', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(asked.status).toBe(403);
    // The filters still apply to what the key may see.
    const images = ids((await listed('/v1/models?type=image_generation', { authorization: `Bearer ${scoped}` })).body, 'data', 'id');
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((id) => id.startsWith('mock/'))).toBe(true);
    expect(images.length).toBeLessThan(seen.length);
  });

  it("Anthropic's /v1/models (anthropic-version sent)", async () => {
    const { status, body } = await listed('/v1/models?limit=1000', { 'x-api-key': scoped, 'anthropic-version': '2023-06-01' });
    expect(status).toBe(200);
    const seen = ids(body, 'data', 'id');
    expect(seen).toContain('mock/echo');
    expect(seen.filter((id) => !id.startsWith('mock/'))).toEqual(['other/plain']);
  });

  it("Gemini's /v1beta/models and Vertex AI's publisher models", async () => {
    const gemini = await listed('/v1beta/models?pageSize=1000', { 'x-goog-api-key': scoped });
    expect(gemini.status).toBe(200);
    const names = ids(gemini.body, 'models', 'name');
    expect(names).toContain('models/mock/echo');
    expect(names.filter((name) => !name.startsWith('models/mock/'))).toEqual(['models/other/plain']);
    const vertex = await listed('/v1beta1/publishers/google/models?pageSize=1000', { 'x-goog-api-key': scoped });
    expect(vertex.status).toBe(200);
    const publisher = ids(vertex.body, 'publisherModels', 'name');
    expect(publisher).toContain('publishers/google/models/mock/echo');
    expect(publisher.filter((name) => !name.startsWith('publishers/google/models/mock/'))).toEqual(['publishers/google/models/other/plain']);
  });
});

/** The answer to `path` with `headers`: its status and body, the model id in it replaced by `<id>` and request ids left out (they differ per request). */
async function answer(path: string, headers: Record<string, string>, id: string): Promise<{ status: number; body: unknown }> {
  const res = await gw.fetch(path, { headers });
  const text = (await res.text()).split(id).join('<id>');
  return { status: res.status, body: JSON.parse(text, (k, v: unknown) => (/^(request_?id|requestId|correlation_id)$/.test(k) ? undefined : v)) as unknown };
}

describe('a key scoped to some models gets a model outside its scope as an unknown model', () => {
  const routes: Array<[string, (id: string) => string, Record<string, string>]> = [
    ["OpenAI's /v1/models/{id}", (id) => `/v1/models/${encodeURIComponent(id)}`, {}],
    ["Anthropic's /v1/models/{id} (anthropic-version sent)", (id) => `/v1/models/${encodeURIComponent(id)}`, { 'anthropic-version': '2023-06-01' }],
    ["Gemini's /v1beta/models/{name}", (id) => `/v1beta/models/${id}`, {}],
    ["Vertex AI's publisher model", (id) => `/v1beta1/publishers/google/models/${id}`, {}],
  ];
  const auth = (route: string, key: string): Record<string, string> =>
    route.startsWith('OpenAI') ? { authorization: `Bearer ${key}` } : route.startsWith('Anthropic') ? { 'x-api-key': key } : { 'x-goog-api-key': key };

  for (const [route, path, extra] of routes) {
    it(route, async () => {
      const headers = (key: string) => ({ ...auth(route, key), ...extra });
      expect((await gw.fetch(path('other/plain'), { headers: headers(scoped) })).status).toBe(200);
      expect((await gw.fetch(path('other/think'), { headers: headers(open) })).status).toBe(200);
      const unknown = await answer(path('other/nope'), headers(scoped), 'other/nope');
      expect(unknown.status).toBe(404);
      // Outside the scope (other/think), or in it but routed outside it (other/echo falls back to other/think).
      for (const id of ['other/think', 'other/echo']) expect(await answer(path(id), headers(scoped), id)).toEqual(unknown);
    });
  }
});
