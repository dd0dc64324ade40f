import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const DAY_MS = 24 * 3600 * 1000;

interface Envelope {
  data: Array<Record<string, unknown> & { id: string; media_type: string; status: string }>;
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

describe('Media Library over HTTP (session login, lifecycle, paging, isolation, expiry)', () => {
  const dir = tempDir('gw-media-lib-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
  const dataDir = path.join(dir, 'data');
  let gw: SpawnedGateway;
  let alice: string;
  let bob: string;
  let aliceKey: string;

  const call = async (token: string, method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${gw.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, text };
  };
  const login = async (email: string) => {
    const res = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  };

  beforeAll(async () => {
    gw = await spawnGateway({ configFile, dataDir });
    const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    for (const email of ['alice@example.test', 'bob@example.test']) {
      const created = await cli('accounts', 'create', '--email', email, '--password', 'correct horse', '--credits', '1000');
      expect(created.exitCode, String(created.stderr)).toBe(0);
    }
    const key = await cli('keys', 'create', '--account', 'alice@example.test', '--json');
    aliceKey = (JSON.parse(String(key.stdout)) as { key: string }).key;
    alice = await login('alice@example.test');
    bob = await login('bob@example.test');
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('create → poll → processing → completed, as a client and a worker would', async () => {
    const created = await call(alice, 'POST', '/v1/media/generations', { media_type: 'video', model: 'veo-3', prompt: 'a wave', provider_task_id: 'op-42', parameters: { duration: 8, resolution: '720p' } });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;
    expect(created.body).toMatchObject({ media_type: 'video', status: 'pending', model: 'veo-3', prompt: 'a wave', parameters: { duration: 8, resolution: '720p' }, result_urls: [], primary_url: null, completed_at: null });
    expect(Object.keys(created.body!)).toEqual([
      'id', 'media_type', 'status', 'model', 'prompt', 'parameters', 'result_urls', 'primary_url', 'preview_url',
      'file_size_bytes', 'duration_seconds', 'width', 'height', 'error', 'created_at', 'completed_at',
    ]);
    const worker = (async () => {
      await new Promise((r) => setTimeout(r, 150));
      expect((await call(alice, 'PATCH', `/v1/media/generations/${id}`, { status: 'processing' })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 150));
      const done = await call(alice, 'PATCH', `/v1/media/generations/${id}`, {
        status: 'completed', result_urls: ['https://cdn.example/v.mp4'], primary_url: 'https://cdn.example/v.mp4', preview_url: 'https://cdn.example/v.jpg',
        file_size_bytes: 1234567, duration_seconds: 8, width: 1280, height: 720, input_tokens: 12, output_tokens: 0, cost_credits: 250,
      });
      expect(done.status).toBe(200);
    })();
    const seen: string[] = [];
    let record: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      record = (await call(alice, 'GET', `/v1/media/generations/${id}`)).body!;
      if (seen.at(-1) !== record.status) seen.push(record.status as string);
      if (record.status === 'completed' || record.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await worker;
    expect(seen[0]).toBe('pending');
    expect(seen.at(-1)).toBe('completed');
    expect(record).toMatchObject({ primary_url: 'https://cdn.example/v.mp4', width: 1280, height: 720, duration_seconds: 8 });
    expect(record.completed_at).toBeGreaterThanOrEqual(record.created_at as number);
    expect(record).not.toHaveProperty('cost_credits');
    const failed = await call(alice, 'POST', '/v1/media/generations', { media_type: 'music', model: 'suno' });
    const patched = await call(alice, 'PATCH', `/v1/media/generations/${failed.body!.id}`, { status: 'failed', error: 'provider timeout' });
    expect(patched.body).toMatchObject({ status: 'failed', error: 'provider timeout' });
    expect(patched.body!.completed_at).toEqual(expect.any(Number));
  });

  it('records images generated through the gateway in the caller\'s library', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: aliceKey, maxRetries: 0 });
    const image = await client.images.generate({ model: 'mock/image', prompt: 'library cat', size: '256x256' as '1024x1024' });
    const images = (await call(alice, 'GET', '/v1/media/images')).body as unknown as Envelope;
    const record = images.data.find((r) => r.prompt === 'library cat')!;
    expect(record).toMatchObject({ media_type: 'image', status: 'completed', model: 'mock/image', width: 256, height: 256, primary_url: image.data![0].url });
    expect(record.file_size_bytes).toBeGreaterThan(0);
    expect((await call(bob, 'GET', '/v1/media/images')).body).toMatchObject({ total: 0 });
  });

  it('filters by type and status and pages through, edge cases included', async () => {
    for (const [type, n] of [['image', 3], ['threed', 2], ['music', 1]] as const) {
      for (let i = 0; i < n; i++) await call(alice, 'POST', '/v1/media/generations', { media_type: type, model: `${type}-model`, prompt: `${type} ${i}` });
    }
    const list = (query: string, route = '/v1/media/generations') => call(alice, 'GET', `${route}${query}`);
    const all = (await list('')).body as unknown as Envelope;
    expect(all).toMatchObject({ page: 1, page_size: 20, has_more: false });
    expect(all.total).toBe(all.data.length);
    const pending = (await list('?status=pending')).body as unknown as Envelope;
    expect(pending.data.every((r) => r.status === 'pending')).toBe(true);
    expect(pending.total).toBe(6);
    const threed = (await list('?media_type=threed&status=pending')).body as unknown as Envelope;
    expect(threed.total).toBe(2);
    const perType = (await list('', '/v1/media/threed')).body as unknown as Envelope;
    expect(perType.data.map((r) => r.id)).toEqual(threed.data.map((r) => r.id));
    // Paging: 2 per page over the pending ones, newest first, no overlap.
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push((await list(`?status=pending&page=${page}&page_size=2`)).body as unknown as Envelope);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(new Set(pages.flatMap((p) => p.data.map((r) => r.id))).size).toBe(6);
    const beyond = (await list('?status=pending&page=4&page_size=2')).body as unknown as Envelope;
    expect(beyond).toMatchObject({ data: [], total: 6, page: 4, has_more: false });
    expect(((await list('?page_size=100')).body as unknown as Envelope).page_size).toBe(100);
    expect(((await list('?page_size=1')).body as unknown as Envelope).data).toHaveLength(1);
    for (const bad of ['?page=0', '?page=-1', '?page_size=0', '?page_size=101', '?page=two', '?media_type=audio', '?status=done']) {
      const res = await list(bad);
      expect(res.status, bad).toBe(422);
      expect((res.body!.error as { code: string; details: { fields: object } }).code).toBe('validation_error');
    }
  });

  it('refuses API keys (401) and hides other accounts\' records (404); deletes with 204', async () => {
    const own = await call(alice, 'POST', '/v1/media/generations', { media_type: 'image', model: 'm' });
    const id = own.body!.id as string;
    const withKey = await call(aliceKey, 'GET', '/v1/media/generations');
    expect(withKey.status).toBe(401);
    expect((withKey.body!.error as { code: string }).code).toBe('authentication_error');
    expect((await call(aliceKey, 'POST', '/v1/media/generations', { media_type: 'image', model: 'm' })).status).toBe(401);
    expect((withKey.body!.error as { message: string }).message).toContain('API keys are not accepted');
    // The same words for a key sent the other way the spec allows (X-API-Key), not "No session token provided".
    const viaHeader = await fetch(`${gw.url}/v1/media/generations/${id}`, { headers: { 'x-api-key': aliceKey } });
    expect(viaHeader.status).toBe(401);
    expect(((await viaHeader.json()) as { error: { message: string } }).error.message).toContain('API keys are not accepted');
    for (const [method, body] of [['GET'], ['PATCH', { status: 'completed' }], ['DELETE']] as const) {
      const res = await call(bob, method, `/v1/media/generations/${id}`, body);
      expect(res.status, method).toBe(404);
      expect((res.body!.error as { code: string }).code).toBe('not_found');
    }
    expect((await call(alice, 'GET', '/v1/media/generations/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const deleted = await call(alice, 'DELETE', `/v1/media/generations/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await call(alice, 'GET', `/v1/media/generations/${id}`)).status).toBe(404);
    expect((await call(alice, 'DELETE', `/v1/media/generations/${id}`)).status).toBe(404);
  });

  it('expires records after 30 days (server restarted with a clock 31 days ahead): not listed, not retrievable, purged', async () => {
    const before = (await call(alice, 'GET', '/v1/media/generations?page_size=100')).body as unknown as Envelope;
    expect(before.total).toBeGreaterThan(0);
    const someId = before.data[0].id;
    expect(await gw.stop()).toBe(0);
    gw = await spawnGateway({ configFile, dataDir, env: { GATEWAY_CLOCK_OFFSET_MS: String(31 * DAY_MS) } });
    alice = await login('alice@example.test'); // the old session expired too (7 days)
    const fresh = await call(alice, 'POST', '/v1/media/generations', { media_type: 'music', model: 'after' });
    const after = (await call(alice, 'GET', '/v1/media/generations?page_size=100')).body as unknown as Envelope;
    expect(after.data.map((r) => r.id)).toEqual([fresh.body!.id]);
    expect(after.total).toBe(1);
    expect((await call(alice, 'GET', `/v1/media/generations/${someId}`)).status).toBe(404);
    // The janitor purged the old records from the store at start.
    await gw.stop();
    expect(storedMediaIds(dataDir)).toEqual([fresh.body!.id]);
  });
});

/** The live record ids of the Media Library file (an append-only log of puts and deletes). */
function storedMediaIds(dataDir: string): string[] {
  const live = new Map<string, true>();
  for (const line of fs.readFileSync(path.join(dataDir, 'media.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const op = JSON.parse(line) as { put?: { id: string }; del?: string };
    if (op.put) live.set(op.put.id, true);
    if (op.del) live.delete(op.del);
  }
  return [...live.keys()];
}
