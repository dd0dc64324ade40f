import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Two gateway processes on one PostgreSQL database and one Redis (each with its own data dir), as behind a load balancer. */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let a: SpawnedGateway;
let b: SpawnedGateway;
let configFile: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const dir = tempDir('gw-pg-');
  configFile = writeConfig(dir, {
    store: { postgres: db.url },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } },
  });
  a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a') });
  b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b') });
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
});

const cli = async (g: SpawnedGateway, args: string[]) => {
  const result = await runCli(['--config', configFile, '--data-dir', g.dataDir, ...args]);
  return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
};

const chat = (g: SpawnedGateway, key: string) =>
  fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });

describe('two instances on one PostgreSQL', () => {
  it('the first instance made the first key; the second made none and accepts it', async () => {
    expect(a.key).toMatch(/^sk-gw-/);
    expect(b.key).toBeUndefined();
    expect((await chat(b, a.key!)).status).toBe(200);
  });

  it('each says at start that its records are in the shared database, without the password', () => {
    for (const g of [a, b]) {
      expect(g.stdout()).toContain(`store: PostgreSQL at ${db.url.replace(/:[^:@/]*@/, '@')}`);
      expect(g.stdout()).toContain(`data dir ${g.dataDir} holds this instance's settlement outbox: keep it on persistent storage`);
      expect(g.stdout()).toContain(`limits: Redis at ${REDIS_URL}`);
    }
  });

  it('a key created through A works on B at once; revoked through B, it fails on A within 1 s', async () => {
    expect((await cli(a, ['accounts', 'create', '--email', 'scale@example.com', '--credits', '1000'])).code).toBe(0);
    const created = await cli(a, ['keys', 'create', '--account', 'scale@example.com', '--json']);
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.out) as { id: string; key: string };
    expect((await chat(b, key)).status).toBe(200);
    expect((await cli(b, ['keys', 'revoke', id])).code).toBe(0);
    const revokedAt = Date.now();
    let status = 200;
    while (Date.now() - revokedAt < 1_000) {
      status = (await chat(a, key)).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });

  it('a session opened on A works on B, and a media record created through A is listed by B', async () => {
    expect((await cli(a, ['accounts', 'create', '--email', 'media@example.com', '--password', 'correct horse', '--credits', '10'])).code).toBe(0);
    const login = await fetch(`${a.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'media@example.com', password: 'correct horse' }) });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${a.url}/v1/media/generations`, { method: 'POST', headers, body: JSON.stringify({ media_type: 'video', model: 'veo-3', prompt: 'a wave' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // The session reaches B through its notification: wait for it (well under a second), then list there.
    let listed: Response | undefined;
    for (const started = Date.now(); Date.now() - started < 1_000; await new Promise((r) => setTimeout(r, 20))) {
      listed = await fetch(`${b.url}/v1/media/generations`, { headers });
      if (listed.status === 200) break;
    }
    expect(listed?.status).toBe(200);
    const body = (await listed!.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toContain(id);
  });
  it("a Gemini resumable upload started on A takes its chunks on B and A (a load balancer's choice), and any instance serves the file; the same offset twice is taken once", async () => {
    const key = a.key!;
    const bytes = Buffer.from(Array.from({ length: 3_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    const start = await fetch(`${a.url}/upload/v1beta/files`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(bytes.length), 'content-type': 'application/json' },
      body: JSON.stringify({ file: { displayName: 'shared.txt', mimeType: 'text/plain' } }),
    });
    expect(start.status).toBe(200);
    const url = new URL(start.headers.get('x-goog-upload-url')!);
    const at = (g: SpawnedGateway) => `${g.url}${url.pathname}${url.search}`;
    const send = (g: SpawnedGateway, command: string, offset: number, chunk: Uint8Array) =>
      fetch(at(g), { method: 'POST', headers: { 'x-goog-api-key': key, 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) }, body: new Uint8Array(chunk) });
    const first = await send(b, 'upload', 0, bytes.subarray(0, 1_000));
    expect(first.status, await first.clone().text()).toBe(200);
    expect(first.headers.get('x-goog-upload-size-received')).toBe('1000');
    // The same chunk again, on the other instance: the upload has moved on.
    const again = await send(a, 'upload', 0, bytes.subarray(0, 1_000));
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain('X-Goog-Upload-Offset must be 1000');
    const second = await send(a, 'upload', 1_000, bytes.subarray(1_000, 2_000));
    expect(second.headers.get('x-goog-upload-size-received')).toBe('2000');
    const last = await send(b, 'upload, finalize', 2_000, bytes.subarray(2_000));
    expect(last.status, await last.clone().text()).toBe(200);
    const file = ((await last.json()) as { file: { name: string; sizeBytes: string } }).file;
    expect(file.sizeBytes).toBe(String(bytes.length));
    for (const g of [a, b]) {
      const download = await fetch(`${g.url}/v1beta/${file.name}:download?alt=media`, { headers: { 'x-goog-api-key': key } });
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // The upload URL is spent everywhere.
    expect((await send(a, 'upload, finalize', 3_000, Buffer.alloc(0))).status).toBe(404);
  });
});
