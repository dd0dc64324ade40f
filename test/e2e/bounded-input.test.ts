/**
 * Bounded input (issue 14, part 1) against the real server: a 5,000-deep JSON value on every
 * JSON POST/PATCH route is a 422 naming the field (it used to be stored and kill the process
 * at the next db.json write), per-field bounds are 422s, and a client that aborts its upload is
 * a debug line, not an `unhandled error`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const DEEP = 5_000;
const deepJson = (field: string, rest: Record<string, unknown>) => {
  const head = JSON.stringify(rest).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}"${field}":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`;
};

interface Envelope {
  error: { code: string; message: string; details?: { fields?: Record<string, string> } };
}

describe('bounded input on every route', () => {
  let gw: SpawnedGateway;
  let session: string;
  let mediaId: string;

  const send = (pathname: string, body: string, token: string, method = 'POST', type = 'application/json') =>
    fetch(`${gw.url}${pathname}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });

  async function expect422(res: Response, field: string): Promise<Envelope> {
    const text = await res.text();
    expect(res.status, text).toBe(422);
    const body = JSON.parse(text) as Envelope;
    expect(body.error.code).toBe('validation_error');
    expect(Object.keys(body.error.details?.fields ?? {})).toContain(field);
    return body;
  }

  beforeAll(async () => {
    gw = await spawnGateway({ config: { logging: { level: 'debug' }, providers: { mock: { plugin: 'mock' } } } });
    const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'accounts', 'create', '--email', 'deep@example.test', '--password', 'correct horse']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'deep@example.test', password: 'correct horse' }) });
    session = ((await login.json()) as { token: string }).token;
    const media = await send('/v1/media/generations', JSON.stringify({ media_type: 'video', model: 'veo' }), session);
    mediaId = ((await media.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('a 5,000-deep value is a 422 naming the field on every JSON POST/PATCH route, and the server lives', async () => {
    const chat = { model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }] };
    const cases: Array<{ path: string; token: string; field: string; rest: Record<string, unknown>; method?: string }> = [
      { path: '/v1/chat/completions', token: gw.key!, field: 'extra_thing', rest: chat },
      { path: '/v1/messages', token: gw.key!, field: 'metadata', rest: { ...chat, max_tokens: 10 } },
      { path: '/v1/responses', token: gw.key!, field: 'input', rest: { model: 'mock/echo' } },
      { path: '/v1/images/generations', token: gw.key!, field: 'unknown_option', rest: { model: 'mock/image', prompt: 'a cat' } },
      { path: '/v1/audio/speech', token: gw.key!, field: 'voice', rest: { model: 'mock/tts', input: 'hi' } },
      { path: '/v1/media/generations', token: session, field: 'parameters', rest: { media_type: 'image', model: 'm' } },
      { path: `/v1/media/generations/${mediaId}`, token: session, field: 'result_urls', rest: {}, method: 'PATCH' },
      { path: '/api/auth/login', token: '', field: 'email', rest: { password: 'x' } },
    ];
    for (const c of cases) {
      const body = await expect422(await send(c.path, deepJson(c.field, c.rest), c.token, c.method), c.field);
      expect(body.error.message).toContain('64 levels');
    }
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    const ok = await send('/v1/chat/completions', JSON.stringify(chat), gw.key!);
    expect(ok.status).toBe(200);
    // Nothing deep was stored: the store still writes, and the server still runs after its write.
    await new Promise((r) => setTimeout(r, 400));
    for (const file of ['db.json', 'media.jsonl'].map((f) => path.join(gw.dataDir, f)).filter((f) => fs.existsSync(f))) {
      expect(fs.readFileSync(file, 'utf8')).not.toContain('[[[[');
    }
    expect(gw.process.exitCode).toBeNull();
    expect(gw.stderr()).not.toContain('unhandled error');
  });

  it('per-field bounds: over-long model, metadata, multipart text fields are 422s naming the field', async () => {
    const chat = { model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }] };
    await expect422(await send('/v1/chat/completions', JSON.stringify({ ...chat, model: 'm'.repeat(300) }), gw.key!), 'model');
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    await expect422(await send('/v1/chat/completions', JSON.stringify({ ...chat, metadata }), gw.key!), 'metadata');
    await expect422(await send('/v1/responses', JSON.stringify({ model: 'mock/echo', input: 'x', metadata: { k: 'v'.repeat(600) } }), gw.key!), 'metadata.k');
    await expect422(await send('/v1/images/generations', JSON.stringify({ model: 'mock/image', prompt: 'x', quality: 'q'.repeat(100) }), gw.key!), 'quality');

    const form = new FormData();
    form.set('model', 'mock/whisper');
    form.set('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav');
    form.set('prompt', 'p'.repeat(5_000));
    await expect422(await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form }), 'prompt');
    form.set('prompt', 'ok');
    form.set('notes', 'n'.repeat(70_000));
    await expect422(await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form }), 'notes');
    const many = new FormData();
    for (let i = 0; i < 70; i += 1) many.append(`f${i}`, 'x');
    await expect422(await fetch(`${gw.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: many }), 'body');
  });

  it('a client aborting its upload is a normal event: no unhandled error in the log', async () => {
    const { hostname, port } = new URL(gw.url);
    const uploads = [
      ['/v1/chat/completions', 'application/json', 'content-length: 100000'],
      ['/v1/audio/transcriptions', 'multipart/form-data; boundary=xx', 'content-length: 100000'],
      ['/v1/chat/completions', 'application/json', 'transfer-encoding: chunked'],
    ];
    for (const [pathname, type, length] of uploads) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), hostname, () => {
          socket.write(`POST ${pathname} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\ncontent-type: ${type}\r\n${length}\r\n\r\n`);
          socket.write(length.startsWith('transfer') ? '10\r\n{"model":"mock/e' : '{"model":');
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('close', () => resolve());
      });
    }
    const logged = async (n: number) => {
      for (let i = 0; i < 50 && (gw.stderr().match(/client closed the connection during the upload/g) ?? []).length < n; i += 1) await new Promise((r) => setTimeout(r, 50));
    };
    await logged(uploads.length);
    expect(gw.stderr().match(/debug: client closed the connection during the upload/g)).toHaveLength(uploads.length);
    expect(gw.stderr()).not.toContain('unhandled error');
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});
