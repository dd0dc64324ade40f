import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../plugins/mock/png.ts';
import { checkPng } from './png-check.ts';
import { inProcessGateway, type InProcessGateway } from './in-process-app.ts';

describe('media routes (in-process)', () => {
  let gw: InProcessGateway;
  let key: Record<string, string>;

  beforeAll(async () => {
    gw = await inProcessGateway({ providers: { mock: { plugin: 'mock' } }, server: { bodyLimits: { media: 64 * 1024 } }, media: { tempImageTtlSeconds: 60 } });
    key = { authorization: `Bearer ${gw.apiKey}` };
  });
  afterAll(() => gw.close());

  const post = (path: string, body: unknown, headers = key) =>
    gw.request(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('generates, serves the temporary URL with its type, and 404s it after the TTL', async () => {
    const res = await post('/v1/images/generations', { model: 'mock/image', prompt: 'a kite', size: '40x30', n: 2 });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-media-generation-id');
    const body = (await res.json()) as { created: number; data: Array<{ url: string; revised_prompt: string }> };
    expect(body.created).toBe(Math.floor(gw.clock.now() / 1000));
    expect(body.data).toHaveLength(2);
    const url = new URL(body.data[0].url);
    // The listener's address (in process: the configured host and port), never the request's Host.
    expect(url.origin).toBe('http://127.0.0.1:8787');
    const image = await gw.request(url.pathname); // no credentials needed
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(checkPng(new Uint8Array(await image.arrayBuffer()))).toMatchObject({ width: 40, height: 30, crcOk: true });
    const session = await gw.session(gw.accountId);
    const record = (await (await gw.request(`/v1/media/generations/${id}`, { headers: { authorization: `Bearer ${session.token}` } })).json()) as Record<string, unknown>;
    expect(record).toMatchObject({ media_type: 'image', status: 'completed', model: 'mock/image', prompt: 'a kite', width: 40, height: 30, primary_url: body.data[0].url });
    expect(record.result_urls).toEqual(body.data.map((d) => d.url));
    expect(record.file_size_bytes).toBe((await (await gw.request(url.pathname)).arrayBuffer()).byteLength);
    gw.clock.advance(60_000);
    const gone = await gw.request(url.pathname);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('answers b64_json without a URL', async () => {
    const res = await post('/v1/images/generations', { model: 'mock/image', prompt: 'b64', size: '8x8', response_format: 'b64_json' });
    const body = (await res.json()) as { data: Array<Record<string, string>> };
    expect(body.data[0].url).toBeUndefined();
    expect(checkPng(Buffer.from(body.data[0].b64_json, 'base64'))).toMatchObject({ width: 8, height: 8 });
    expect(body.data[0].revised_prompt).toContain('b64');
  });

  it('rejects a model of the wrong kind and an unknown model', async () => {
    const wrong = await post('/v1/images/generations', { model: 'mock/tts', prompt: 'x' });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toContain('not an image generation model');
    expect((await post('/v1/audio/speech', { model: 'mock/image', input: 'x', voice: 'alloy' })).status).toBe(400);
    expect((await post('/v1/images/generations', { model: 'mock/nope', prompt: 'x' })).status).toBe(404);
  });

  it('needs an API key on the generation routes', async () => {
    expect((await post('/v1/images/generations', { model: 'mock/image', prompt: 'x' }, {})).status).toBe(401);
    expect((await post('/v1/audio/speech', { model: 'mock/tts', input: 'x', voice: 'alloy' }, { authorization: 'Bearer sk-gw-wrong' })).status).toBe(401);
  });

  it('413s multipart uploads over the media limit, and 400s a body that is not multipart', async () => {
    const form = new FormData();
    form.append('model', 'mock/whisper');
    form.append('file', new File([new Uint8Array(70 * 1024)], 'big.wav'));
    const res = await gw.request('/v1/audio/transcriptions', { method: 'POST', headers: key, body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    const json = await post('/v1/audio/transcriptions', { model: 'mock/whisper' });
    expect(json.status).toBe(400);
  });

  it('validates edits: image required, fields checked together', async () => {
    const form = new FormData();
    form.append('model', 'mock/image');
    form.append('n', '11');
    const res = await gw.request('/v1/images/edits', { method: 'POST', headers: key, body: form });
    // Missing fields make it spec §7's 400; every problem is still listed.
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: unknown } }).error.details).toEqual({ missing: ['prompt', 'image'], fields: { prompt: 'is required', n: 'must be <= 10', image: 'is required' } });
    const some = new FormData();
    some.append('model', 'mock/image');
    some.append('prompt', 'p');
    some.append('n', '11');
    some.append('image', new File([new Uint8Array(encodePng({ width: 4, height: 4, rgba: new Uint8Array(64).fill(200) }))], 'in.png', { type: 'image/png' }));
    expect((await gw.request('/v1/images/edits', { method: 'POST', headers: key, body: some })).status).toBe(422);
  });

  it('edits with image[] (GPT-image style) and records the edit', async () => {
    const form = new FormData();
    form.append('model', 'mock/image');
    form.append('prompt', 'make it blue');
    form.append('size', '16x16');
    form.append('image[]', new File([new Uint8Array(encodePng({ width: 4, height: 4, rgba: new Uint8Array(64).fill(200) }))], 'in.png', { type: 'image/png' }));
    const res = await gw.request('/v1/images/edits', { method: 'POST', headers: key, body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ url: string }> };
    expect(checkPng(new Uint8Array(await (await gw.request(new URL(body.data[0].url).pathname)).arrayBuffer()))).toMatchObject({ width: 16, height: 16 });
  });

  it('speaks PCM and MP3 with their Content-Types and refuses flac from mock/tts with a 422', async () => {
    const pcm = await post('/v1/audio/speech', { model: 'mock/tts', input: 'hello', voice: 'shimmer', response_format: 'pcm' });
    expect(pcm.status).toBe(200);
    expect(pcm.headers.get('content-type')).toBe('audio/pcm');
    expect(pcm.headers.get('x-request-id')).toMatch(/^req_/);
    const mp3 = await post('/v1/audio/speech', { model: 'mock/tts', input: 'hello', voice: 'alloy' });
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    const flac = await post('/v1/audio/speech', { model: 'mock/tts', input: 'hello', voice: 'alloy', response_format: 'flac' });
    expect(flac.status).toBe(422);
    const error = ((await flac.json()) as { error: { message: string; details: unknown } }).error;
    expect(error.message).toContain('cannot encode flac');
    expect(error.details).toEqual({ fields: { response_format: expect.any(String) } });
  });
});

describe('Media Library routes (in-process)', () => {
  let gw: InProcessGateway;
  let auth: Record<string, string>;
  let other: Record<string, string>;

  beforeAll(async () => {
    gw = await inProcessGateway();
    auth = { authorization: `Bearer ${(await gw.session(gw.accountId)).token}`, 'content-type': 'application/json' };
    other = { authorization: `Bearer ${(await gw.session()).token}`, 'content-type': 'application/json' };
  });
  afterAll(() => gw.close());

  const create = async (body: Record<string, unknown>, headers = auth) => {
    const res = await gw.request('/v1/media/generations', { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
  };

  it('creates (201 + Location), patches, deletes (204, empty body)', async () => {
    const created = await create({ media_type: 'video', model: 'veo-3', prompt: 'surf', provider_task_id: 'op-1', parameters: { duration: 8 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/media/generations/${created.body.id}`);
    expect(created.body).toMatchObject({ status: 'pending', parameters: { duration: 8 }, completed_at: null });
    expect(created.body).not.toHaveProperty('provider_task_id');
    const url = `/v1/media/generations/${created.body.id}`;
    gw.clock.advance(7000);
    const patched = await gw.request(url, { method: 'PATCH', headers: auth, body: JSON.stringify({ status: 'completed', result_urls: ['https://cdn/x.mp4'], primary_url: 'https://cdn/x.mp4', duration_seconds: 8, width: 1280, height: 720, input_tokens: 5, output_tokens: 9, cost_credits: 40 }) });
    expect(patched.status).toBe(200);
    const record = (await patched.json()) as Record<string, unknown>;
    expect(record).toMatchObject({ status: 'completed', width: 1280, completed_at: (created.body.created_at as number) + 7 });
    expect(record).not.toHaveProperty('cost_credits');
    const stored = await gw.deps.store.media.get(created.body.id as string);
    expect(stored).toMatchObject({ input_tokens: 5, output_tokens: 9, cost_credits: 40, provider_task_id: 'op-1' });
    const deleted = await gw.request(url, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await gw.request(url, { headers: auth })).status).toBe(404);
  });

  it('is session-only: API keys get 401; other accounts get 404', async () => {
    const created = await create({ media_type: 'music', model: 'suno' });
    const url = `/v1/media/generations/${created.body.id}`;
    const withKey = await gw.request('/v1/media/generations', { headers: { authorization: `Bearer ${gw.apiKey}` } });
    expect(withKey.status).toBe(401);
    expect(((await withKey.json()) as { error: { code: string } }).error.code).toBe('authentication_error');
    expect((await gw.request('/v1/media/generations')).status).toBe(401);
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await gw.request(url, { method, headers: other, body: method === 'PATCH' ? JSON.stringify({ status: 'failed' }) : undefined });
      expect(res.status).toBe(404);
    }
    expect(((await (await gw.request('/v1/media/generations', { headers: other })).json()) as { total: number }).total).toBe(0);
  });

  it('validates create, patch and list queries with 422 field maps (400 when a required field is missing)', async () => {
    const bad = await create({ media_type: 'hologram' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'bad_request', param: 'model' });
    expect((bad.body.error as { details: unknown }).details).toEqual({ missing: ['model'], fields: { media_type: 'must be one of image, video, music, threed', model: 'is required' } });
    const invalid = await create({ media_type: 'hologram', model: 'm' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toMatchObject({ code: 'validation_error', details: { fields: { media_type: 'must be one of image, video, music, threed' } } });
    const id = (await create({ media_type: 'image', model: 'm' })).body.id;
    const patch = await gw.request(`/v1/media/generations/${id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ status: 'archived', model: 'x' }) });
    expect(patch.status).toBe(422);
    for (const query of ['page=0', 'page_size=101', 'page_size=0', 'media_type=gif', 'status=running', 'page=x']) {
      expect((await gw.request(`/v1/media/generations?${query}`, { headers: auth })).status).toBe(422);
    }
    expect((await gw.request('/v1/media/images?page=0', { headers: auth })).status).toBe(422);
  });

  it('serves the per-type lists and 405s unknown methods', async () => {
    await create({ media_type: 'threed', model: 'meshy' });
    const threed = (await (await gw.request('/v1/media/threed', { headers: auth })).json()) as { data: Array<{ media_type: string }> };
    expect(threed.data.length).toBeGreaterThan(0);
    expect(threed.data.every((r) => r.media_type === 'threed')).toBe(true);
    for (const path of ['/v1/media/images', '/v1/media/videos', '/v1/media/music']) {
      const page = (await (await gw.request(`${path}?page_size=1`, { headers: auth })).json()) as { page_size: number };
      expect(page.page_size).toBe(1);
    }
    expect((await gw.request('/v1/media/images', { method: 'POST', headers: auth, body: '{}' })).status).toBe(405);
  });
});
