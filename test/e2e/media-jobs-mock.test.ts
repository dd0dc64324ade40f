import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

interface Credits {
  data: { credits: { balance: number; reserved: number; total_used: number } };
}

describe('media jobs against mock: /v1/videos through the openai SDK, the Media Library running jobs, isolation', () => {
  const dir = tempDir('gw-media-jobs-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', jobDelayMs: 400 }, slow: { plugin: 'mock', jobDelayMs: 600_000 } } });
  const dataDir = path.join(dir, 'data');
  let gw: SpawnedGateway;
  const keys: Record<string, string> = {};
  const sessions: Record<string, string> = {};
  const sdk = (who: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[who], maxRetries: 0 });
  const get = async (token: string, pathname: string) => fetch(`${gw.url}${pathname}`, { headers: { authorization: `Bearer ${token}` } });
  const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
  const credits = async (who: string) => ((await (await get(keys[who], '/v1/credits')).json()) as Credits).data.credits;

  beforeAll(async () => {
    gw = await spawnGateway({ configFile, dataDir });
    for (const who of ['alice', 'bob']) {
      const email = `${who}@example.test`;
      const created = await cli('accounts', 'create', '--email', email, '--password', 'correct horse', '--credits', '1000');
      expect(created.exitCode, String(created.stderr)).toBe(0);
      const key = await cli('keys', 'create', '--account', email, '--json');
      keys[who] = (JSON.parse(String(key.stdout)) as { key: string }).key;
      const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
      sessions[who] = ((await login.json()) as { token: string }).token;
    }
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('create → retrieve until completed → download the MP4 and its thumbnail → list → delete, billed once per second made', async () => {
    const client = sdk('alice');
    const created = await client.videos.create({ model: 'mock/video', prompt: 'a wave at dusk', seconds: '4', size: '720x1280' });
    expect(created).toMatchObject({ object: 'video', status: 'queued', model: 'video', seconds: '4', size: '720x1280', progress: 0, completed_at: null, error: null });
    expect(created.id).toMatch(/^video_[0-9a-f]{32}$/);
    expect((created as unknown as { polling_url: string }).polling_url).toBe(`${gw.url}/v1/videos/${created.id}`);
    expect(created.expires_at).toBe(created.created_at + 30 * 86400);
    // The estimate (4 s at $0.10/s = 400 credits) is held while the job runs.
    expect((await credits('alice')).reserved).toBe(400);
    const statuses = new Set<string>();
    const done = await until('the video to complete', async () => {
      const v = await client.videos.retrieve(created.id);
      statuses.add(v.status);
      // Billed right after it ends: `usage` shows once the charge is written.
      return (v.status === 'completed' || v.status === 'failed') && 'usage' in v ? v : undefined;
    });
    expect(done.status).toBe('completed');
    expect(done.progress).toBe(100);
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);
    expect(done.seconds).toBe('1'); // the mock makes one second, whatever was asked
    expect((done as unknown as { usage: { cost: number } }).usage).toEqual({ cost: 100 });
    const video = Buffer.from(await (await client.videos.downloadContent(created.id)).arrayBuffer());
    expect(video.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const thumb = Buffer.from(await (await client.videos.downloadContent(created.id, { variant: 'thumbnail' })).arrayBuffer());
    expect([...thumb.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(await credits('alice')).toMatchObject({ balance: 900, reserved: 0, total_used: 100 });
    const listed = [];
    for await (const v of client.videos.list({ limit: 1 })) listed.push(v.id);
    expect(listed).toContain(created.id);
    // The same job is a Media Library record, moved by the gateway.
    const lib = (await (await get(sessions.alice, '/v1/media/videos')).json()) as { data: Array<Record<string, unknown>> };
    const record = lib.data.find((r) => r.prompt === 'a wave at dusk')!;
    expect(record).toMatchObject({ media_type: 'video', status: 'completed', width: 64, height: 36, duration_seconds: 1, file_size_bytes: video.length });
    expect(record.primary_url).toBe(`${gw.url}/v1/media/generations/${record.id}/content`);
    expect(Buffer.from(await (await get(sessions.alice, new URL(record.primary_url as string).pathname)).arrayBuffer())).toEqual(video);
    expect(await client.videos.delete(created.id)).toEqual({ id: created.id, object: 'video.deleted', deleted: true });
    await expect(client.videos.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    expect((await get(sessions.alice, `/v1/media/generations/${record.id}`)).status).toBe(404);
  });

  it('a job the provider fails ends failed with its error and releases the hold', async () => {
    const client = sdk('alice');
    const before = await credits('alice');
    const created = await client.videos.create({ model: 'mock/video', prompt: 'please [fail]' });
    const failed = await until('the job to fail', async () => {
      const v = await client.videos.retrieve(created.id);
      return v.status === 'failed' ? v : undefined;
    });
    expect(failed.error).toEqual({ code: 'generation_failed', message: 'mock: injected job failure' });
    await until('the hold to go', async () => ((await credits('alice')).reserved === 0 ? true : undefined));
    expect((await credits('alice')).balance).toBe(before.balance);
    await expect(client.videos.downloadContent(created.id)).rejects.toMatchObject({ status: 409 });
  });

  it('a Media Library POST with a job model moves to completed by itself; music and 3D serve real files', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: { authorization: `Bearer ${sessions.alice}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; status: string };
    };
    const music = await post({ media_type: 'music', model: 'mock/music', prompt: 'a calm tune', parameters: { seconds: 2 } });
    const model = await post({ media_type: 'threed', model: 'mock/3d', prompt: 'a teapot' });
    expect(music.status).toBe('pending');
    for (const [id, magic] of [[music.id, 'RIFF'], [model.id, 'glTF']] as const) {
      const record = await until('the record to complete', async () => {
        const r = (await (await get(sessions.alice, `/v1/media/generations/${id}`)).json()) as Record<string, unknown>;
        return r.status === 'completed' ? r : undefined;
      });
      const bytes = Buffer.from(await (await get(sessions.alice, new URL(record.primary_url as string).pathname)).arrayBuffer());
      expect(bytes.subarray(0, 4).toString('latin1')).toBe(magic);
      expect(record.file_size_bytes).toBe(bytes.length);
    }
    // A model no provider runs stays client-driven.
    const manual = await post({ media_type: 'video', model: 'veo-3', prompt: 'x' });
    expect((await (await get(sessions.alice, `/v1/media/generations/${manual.id}`)).json()) as object).toMatchObject({ status: 'pending' });
  });

  it('a job of another account is 404 through every route, content included', async () => {
    const created = await sdk('alice').videos.create({ model: 'mock/video', prompt: 'private' });
    await until('completion', async () => ((await sdk('alice').videos.retrieve(created.id)).status === 'completed' ? true : undefined));
    const bob = sdk('bob');
    await expect(bob.videos.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.videos.downloadContent(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.videos.delete(created.id)).rejects.toMatchObject({ status: 404 });
    expect((await fetch(`${gw.url}/v1/videos/${created.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${keys.bob}` } })).status).toBe(404);
    const bobList = [];
    for await (const v of bob.videos.list()) bobList.push(v.id);
    expect(bobList).not.toContain(created.id);
    const recordId = created.id.slice(6).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    for (const token of [sessions.bob, keys.bob]) expect((await get(token, `/v1/media/generations/${recordId}/content`)).status).toBe(404);
    expect((await get(sessions.bob, `/v1/media/generations/${recordId}`)).status).toBe(404);
    // The owner reaches it with either credential.
    for (const token of [sessions.alice, keys.alice]) expect((await get(token, `/v1/media/generations/${recordId}/content`)).status).toBe(200);
  });

  it('validates the create body (422 naming fields, 400 when the prompt is missing) and refuses non-video models', async () => {
    const post = (body: object) => fetch(`${gw.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${keys.alice}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const res = await post({ model: 'mock/video', prompt: 'x', seconds: 'ten', size: 'big', callback_url: 'ftp://x' });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { details: { fields: Record<string, string> } } };
    expect(Object.keys(body.error.details.fields).sort()).toEqual(['callback_url', 'seconds', 'size']);
    // A missing required field is spec §7's 400; every problem is still listed.
    const missing = await post({ model: 'mock/video', seconds: 'ten' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { details: unknown } }).error.details).toMatchObject({ missing: ['prompt'], fields: { prompt: expect.any(String), seconds: expect.any(String) } });
    // A webhook to this machine, its network or a cloud's metadata service is refused unless media.jobs.webhookPrivateAddresses allows it.
    for (const callback_url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:10.0.0.1]/', 'http://localhost:8080/']) {
      const refused = await post({ model: 'mock/video', prompt: 'x', callback_url });
      expect({ callback_url, status: refused.status }).toEqual({ callback_url, status: 422 });
      expect(((await refused.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields).toEqual({ callback_url: expect.stringContaining('media.jobs.webhookPrivateAddresses') });
    }
    await expect(sdk('alice').videos.create({ model: 'mock/echo', prompt: 'x' })).rejects.toMatchObject({ status: 400 });
    await expect(sdk('alice').videos.create({ model: 'nope/nothing', prompt: 'x' })).rejects.toMatchObject({ status: 404 });
  });

  // Eight CLI runs of ~1 s each (12 s at CI's load): more than the default 30 s only on a crowded box.
  it('gateway videos ls|show|cancel and media ls --type video, through the running server', { timeout: 60_000 }, async () => {
    const client = sdk('alice');
    const before = await credits('alice');
    const v = await client.videos.create({ model: 'slow/video', prompt: 'a very long take', seconds: '2' as '4' });
    await until('the job to run', async () => ((await client.videos.retrieve(v.id)).status === 'in_progress' ? true : undefined));
    const out = async (...args: string[]) => {
      const r = await cli(...args);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      return String(r.stdout);
    };
    const listed = JSON.parse(await out('videos', 'ls', '--json')) as { data: Array<{ id: string; status: string; account: string; provider: string }> };
    expect(listed.data.find((x) => x.id === v.id)).toMatchObject({ status: 'in_progress', account: 'alice@example.test', provider: 'slow' });
    const table = await out('videos', 'ls', '--account', 'alice@example.test');
    expect(table).toMatch(new RegExp(`${v.id}\\s+in_progress\\s+\\d+%\\s+slow/video`));
    expect(await out('videos', 'ls', '--account', 'bob@example.test')).not.toContain(v.id);
    expect(JSON.parse(await out('videos', 'show', v.id, '--json'))).toMatchObject({ id: v.id, status: 'in_progress', seconds: '2', model: 'slow/video', upstream_model: 'video' });
    // An operator reads the model the client asked for (as media show names it), the upstream's id beside it.
    expect(await out('videos', 'show', v.id)).toMatch(/^model\s+slow\/video$/m);
    const lib = JSON.parse(await out('media', 'ls', '--type', 'video', '--status', 'processing', '--json')) as { data: Array<{ prompt: string; model: string; progress?: number }> };
    expect(lib.data.find((r) => r.prompt === 'a very long take')?.progress).toEqual(expect.any(Number));
    // The library names the model as every other record does (the gateway's provider/model id); the video object keeps the upstream's.
    expect(lib.data.find((r) => r.prompt === 'a very long take')?.model).toBe('slow/video');
    expect((await client.videos.retrieve(v.id)).model).toBe('video');
    // Removing the record of a job that has not ended would drop it unbilled (its runner finds it gone): refused, the record stays.
    const record = (JSON.parse(await out('media', 'ls', '--type', 'video', '--json')) as { data: Array<{ id: string; prompt: string }> }).data.find((r) => r.prompt === 'a very long take')!;
    const removed = await cli('media', 'rm', record.id);
    expect(removed.exitCode).toBe(1);
    expect(String(removed.stderr)).toContain('has not ended');
    expect((await client.videos.retrieve(v.id)).status).toBe('in_progress');
    expect(await out('videos', 'cancel', v.id)).toContain('cancel requested');
    const cancelled = await until('the job to be cancelled', async () => {
      const x = await client.videos.retrieve(v.id);
      return (x.status as string) === 'cancelled' ? x : undefined;
    });
    expect(cancelled.completed_at).toEqual(expect.any(Number));
    await until('the hold to go', async () => ((await credits('alice')).reserved === 0 ? true : undefined));
    expect((await credits('alice')).balance).toBe(before.balance);
    const watched = (await out('videos', 'show', v.id, '--watch', '--json')).trim().split('\n');
    expect(JSON.parse(watched.at(-1)!)).toEqual({ id: v.id, status: 'cancelled', progress: expect.any(Number) });
    const unknown = await cli('videos', 'show', 'video_00000000000000000000000000000000');
    expect(unknown.exitCode).not.toBe(0);
    expect(String(unknown.stderr)).toContain('No video with id');
  });
  it('a client cannot lift the jobs-in-flight cap by PATCHing its running jobs\' status; the 429 says when to retry', async () => {
    const email = 'carol@example.test';
    expect((await cli('accounts', 'create', '--email', email, '--password', 'correct horse', '--credits', '100000')).exitCode).toBe(0);
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
    const token = ((await login.json()) as { token: string }).token;
    const send = (method: string, pathname: string, body?: unknown) =>
      fetch(`${gw.url}${pathname}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const ids: string[] = [];
    try {
      // media.jobs.maxInFlightPerAccount is 10; each job is marked completed by the client at once.
      for (let i = 0; i < 10; i++) {
        const res = await send('POST', '/v1/media/generations', { media_type: 'music', model: 'slow/music', prompt: `tune ${i}`, parameters: { seconds: 1 } });
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { id: string }).id);
        expect((await send('PATCH', `/v1/media/generations/${ids.at(-1)}`, { status: 'completed' })).status).toBe(200);
      }
      const eleventh = await send('POST', '/v1/media/generations', { media_type: 'music', model: 'slow/music', prompt: 'one too many', parameters: { seconds: 1 } });
      expect(eleventh.status).toBe(429);
      // Spec §8.1: a throttled answer carries Retry-After and error.retry_after (a slot frees at the earliest at the next poll).
      expect(eleventh.headers.get('retry-after')).toBe('1');
      expect(((await eleventh.json()) as { error: { code: string; retry_after: number } }).error).toMatchObject({ code: 'rate_limit_exceeded', retry_after: 1 });
    } finally {
      for (const id of ids) await send('DELETE', `/v1/media/generations/${id}`);
    }
  });
});
