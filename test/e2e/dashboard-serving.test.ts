import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** The hashed script and stylesheet the page names. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe('the web dashboard at / (a real server)', () => {
  const dir = tempDir('gw-dash-serve-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } }, server: { admin: { port: 0 } } });
  const dataDir = path.join(dir, 'data');
  let gw: SpawnedGateway;
  let adminUrl: string;

  beforeAll(async () => {
    gw = await spawnGateway({ configFile, dataDir });
    adminUrl = (JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')) as { adminUrl: string }).adminUrl;
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('GET / is the page: a strict CSP, no inline script, only hashed files of its own origin', async () => {
    const res = await fetch(`${gw.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    // Every script has a src (no inline code) and nothing is loaded from another origin.
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/src="\/assets\/[^"]+-[A-Za-z0-9_-]{8}\.js"/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).toContain('<meta name="gateway-listener" content="public">');
    expect(assetsOf(html).length).toBeGreaterThanOrEqual(2);
  });

  it('serves the hashed files for a year, gzipped when asked, and a JSON 404 for a name it does not have', async () => {
    const html = await (await fetch(`${gw.url}/`)).text();
    for (const asset of assetsOf(html)) {
      const plain = await fetch(`${gw.url}${asset}`, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = Buffer.from(await plain.arrayBuffer());
      const zipped = await fetch(`${gw.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      // fetch has unzipped it: the same bytes, fewer of them on the wire.
      expect(Buffer.from(await zipped.arrayBuffer()).equals(body)).toBe(true);
      expect(Number(zipped.headers.get('content-length'))).toBeLessThan(body.length);
    }
    const missing = await fetch(`${gw.url}/assets/index-00000000.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('HEAD / answers 200 with no body; unknown non-API paths get the page; API paths keep their JSON 404', async () => {
    const head = await fetch(`${gw.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const deep = await fetch(`${gw.url}/usage`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    for (const api of ['/v1/nothing-here', '/api/nothing', '/admin/nothing']) {
      const res = await fetch(`${gw.url}${api}`);
      expect([api, res.status, res.headers.get('content-type')]).toEqual([api, 404, 'application/json']);
    }
    const post = await fetch(`${gw.url}/usage`, { method: 'POST' });
    expect(post.status).toBe(404);
  });

  // The OpenAI SDK with the base URL lacking /v1 asks GET /models, /files, /batches with Accept: application/json:
  // it got the page (200, HTML), which models.list() returned as its body, where a POST got the 404 saying what to fix.
  it("an API client's GET of a non-API path (Accept without HTML) is the JSON 404 saying the base URL lacks /v1, not the page", async () => {
    const openai = new OpenAI({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    for (const call of [() => openai.models.list(), () => openai.files.list(), () => openai.batches.list(), () => openai.responses.retrieve('resp_x')]) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('The base URL lacks /v1');
    }
    const json = await fetch(`${gw.url}/models`, { headers: { accept: 'application/json' } });
    expect([json.status, json.headers.get('content-type')]).toEqual([404, 'application/json']);
    expect(((await json.json()) as { error: { details: unknown } }).error.details).toEqual({ did_you_mean: '/v1/models' });
    expect((await fetch(`${gw.url}/models`, { method: 'HEAD', headers: { accept: 'application/json' } })).status).toBe(404);
    // A browser's navigation, a client that accepts anything and one that names nothing still get the page.
    for (const accept of ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '*/*', 'text/*', undefined]) {
      const res = await new Promise<{ status: number; type: string }>((resolve, reject) => {
        const url = new URL(`${gw.url}/models`);
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, headers: accept ? { accept } : {} });
        req.on('response', (r) => { r.resume(); resolve({ status: r.statusCode ?? 0, type: String(r.headers['content-type']) }); });
        req.on('error', reject);
        req.end();
      });
      expect([accept, res.status, res.type]).toEqual([accept, 200, 'text/html; charset=utf-8']);
    }
  });

  it('a file the dashboard does not have (/favicon.ico, /robots.txt) is a JSON 404, not the page taken for an icon', async () => {
    for (const file of ['/favicon.ico', '/robots.txt', '/apple-touch-icon.png']) {
      const res = await fetch(`${gw.url}${file}`);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([file, res.status, res.headers.get('content-type'), body.error.code, body.error.message]).toEqual([file, 404, 'application/json', 'not_found', `No route for GET ${file}.`]);
      const head = await fetch(`${gw.url}${file}`, { method: 'HEAD' });
      expect([file, head.status]).toEqual([file, 404]);
    }
    // The page itself names no icon file: the browser asks for none.
    expect(await (await fetch(`${gw.url}/`)).text()).toContain('<link rel="icon" href="data:,">');
  });

  it('is on the admin listener too, opening on the operator views', async () => {
    const res = await fetch(`${adminUrl}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<meta name="gateway-listener" content="admin">');
    expect((await fetch(`${adminUrl}/`, { method: 'HEAD' })).status).toBe(200);
  });

  it("the dashboard's procedures need a session: none or an API key is a 401 envelope; a session reads its own account", async () => {
    const none = await fetch(`${gw.url}/api/trpc/me`);
    expect(none.status).toBe(401);
    const withKey = await fetch(`${gw.url}/api/trpc/me`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(withKey.status).toBe(401);
    expect(((await withKey.json()) as { error: { code: string } }).error.code).toBe('authentication_error');
    const created = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', 'dash@example.test', '--password', 'correct horse']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'dash@example.test', password: 'correct horse' }) });
    const { token } = (await login.json()) as { token: string };
    const me = await fetch(`${gw.url}/api/trpc/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { result: { data: { email: string } } }).result.data.email).toBe('dash@example.test');

    // Another account's key is not there for this session: not listed, not revoked, not changed.
    const foreign = JSON.parse(String((await runCli(['--config', configFile, '--data-dir', dataDir, 'keys', 'create', '--json'])).stdout)) as { id: string };
    const call = (procedure: string, input: unknown) =>
      fetch(`${gw.url}/api/trpc/${procedure}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
    expect((await call('keys.revoke', { id: foreign.id })).status).toBe(404);
    expect((await call('keys.set', { id: foreign.id, name: 'mine now' })).status).toBe(404);
    // A key is created for the session's account only; naming another account is refused.
    expect((await call('keys.create', { name: 'x', account: 'local@localhost' })).status).toBe(400);
    const own = await call('keys.create', { name: 'own' });
    expect(own.status).toBe(200);
    const list = await fetch(`${gw.url}/api/trpc/keys.list?input=${encodeURIComponent(JSON.stringify({}))}`, { headers: { authorization: `Bearer ${token}` } });
    const keys = ((await list.json()) as { result: { data: { data: Array<{ id: string; name: string; account: string }> } } }).result.data.data;
    expect(keys.map((k) => [k.name, k.account])).toEqual([['own', 'dash@example.test']]);
    const keyList = await fetch(`${gw.url}/api/trpc/keys.list?input=${encodeURIComponent(JSON.stringify({}))}`, { headers: { authorization: `Bearer ${token}` } });
    expect(JSON.stringify(await keyList.json())).not.toContain(foreign.id);
  });
});

describe('dashboard: { enabled: false }', () => {
  let gw: SpawnedGateway;
  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, dashboard: { enabled: false } } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('GET / and HEAD / still answer 200 (clients probe /), with a short text and no page; other paths are 404', async () => {
    const res = await fetch(`${gw.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toContain('dashboard is turned off');
    const head = await fetch(`${gw.url}/`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await fetch(`${gw.url}/usage`)).status).toBe(404);
    const html = await fetch(`${gw.url}/`);
    expect(await html.text()).not.toContain('<script');
  });
});
