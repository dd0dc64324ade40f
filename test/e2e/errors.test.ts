import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface Envelope {
  error: { code: string; message: string; type: string; param: string | null; request_id: string; details?: { fields?: Record<string, string> } };
  timestamp: number;
  correlation_id: string;
}

// Every error row of spec §7 that the foundation can produce, with the envelope checked each time.
describe('error envelope', () => {
  let gw: SpawnedGateway;
  const post = (path: string, body: string | object, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function expectError(res: Response, status: number, code: string): Promise<Envelope> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    // OpenAI's `type` and `param` on every route, as chat errors carry them.
    expect(body.error.type).toMatch(/^[a-z_]+$/);
    expect(body.error).toHaveProperty('param');
    expect(body.error.param === null || typeof body.error.param === 'string').toBe(true);
    expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(body.correlation_id).toMatch(/^\S+$/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
    return body;
  }

  beforeAll(async () => {
    gw = await spawnGateway({ config: { server: { bodyLimits: { inference: 4096, media: 8192, other: 6144 } }, batches: { maxFileBytes: 3072 }, providers: { mock: { plugin: 'mock' } } } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('401 authentication_error without a key', async () => {
    const res = await fetch(`${gw.url}/v1/models`);
    await expectError(res, 401, 'authentication_error');
  });

  it('401 invalid_api_key for a wrong key, via Bearer or X-API-Key', async () => {
    await expectError(await fetch(`${gw.url}/v1/models`, { headers: { authorization: 'Bearer sk-gw-wrong' } }), 401, 'invalid_api_key');
    await expectError(await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': 'sk-gw-wrong' } }), 401, 'invalid_api_key');
    expect((await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': gw.key! } })).status).toBe(200);
  });

  it('401 invalid_api_key for a revoked key (revoked by the CLI while the server runs) and an expired one', async () => {
    const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--name', 'temp', '--json']);
    expect(created.exitCode).toBe(0);
    const key = JSON.parse(String(created.stdout)) as { id: string; key: string };
    expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } })).status).toBe(200);
    const revoked = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'revoke', key.id]);
    expect(revoked.exitCode).toBe(0);
    await expectError(await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } }), 401, 'invalid_api_key');

    // A past --expires is refused, so the key expires a minute from now (on a data dir of its
    // own) and is tried on a gateway whose clock is two minutes on (GATEWAY_CLOCK_OFFSET_MS), not
    // after a real wait.
    const dataDir = path.join(tempDir('gw-err-expired-'), 'data');
    const expired = await runCli(['--config', gw.configFile, '--data-dir', dataDir, 'keys', 'create', '--expires', new Date(Date.now() + 60_000).toISOString(), '--json']);
    expect(expired.exitCode).toBe(0);
    const old = JSON.parse(String(expired.stdout)) as { key: string };
    const later = await spawnGateway({ configFile: gw.configFile, dataDir, env: { GATEWAY_CLOCK_OFFSET_MS: '120000' } });
    try {
      await expectError(await fetch(`${later.url}/v1/models`, { headers: { authorization: `Bearer ${old.key}` } }), 401, 'invalid_api_key');
    } finally {
      await later.stop();
    }
  });

  it('400 bad_request for malformed JSON, a non-object body and a missing model', async () => {
    await expectError(await post('/v1/chat/completions', '{"model": "mock/echo", '), 400, 'bad_request');
    await expectError(await post('/v1/chat/completions', '[1,2]'), 400, 'bad_request');
    await expectError(await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] }), 400, 'bad_request');
  });

  it('400 bad_request saying what the model is when a chat-like route names a model of another type: inference and the token counts (Messages, Responses, Gemini)', async () => {
    const notChat = "The model 'mock/image' is not a chat model (it is an image_generation model).";
    const user = [{ role: 'user', content: 'x' }];
    const routes: Array<[string, object]> = [
      ['/v1/chat/completions', { model: 'mock/image', messages: user }],
      ['/v1/messages/count_tokens', { model: 'mock/image', messages: user }],
      ['/v1/responses/input_tokens', { model: 'mock/image', input: 'x' }],
    ];
    for (const [route, body] of routes) {
      const refused = await expectError(await post(route, body), 400, 'bad_request');
      expect(refused.error, route).toMatchObject({ message: notChat, details: { model: 'mock/image' } });
    }
    const gemini = await post('/v1beta/models/mock/image:countTokens', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    expect(gemini.status).toBe(400);
    expect(((await gemini.json()) as { error: unknown }).error).toMatchObject({ message: notChat, status: 'INVALID_ARGUMENT' });
  });

  it('400 bad_request naming a missing required field on the other routes too (images, audio, embeddings, batches, files, count_tokens), 422 once it is there but invalid', async () => {
    const image = await expectError(await post('/v1/images/generations', { model: 'mock/image' }), 400, 'bad_request');
    expect(image.error).toMatchObject({ param: 'prompt', details: { missing: ['prompt'] } });
    await expectError(await post('/v1/images/generations', { model: 'mock/image', prompt: 'p', n: 11 }), 422, 'validation_error');
    const speech = await expectError(await post('/v1/audio/speech', { model: 'mock/tts', input: 'hi' }), 400, 'bad_request');
    expect(speech.error).toMatchObject({ param: 'voice', details: { missing: ['voice'] } });
    await expectError(await post('/v1/embeddings', { input: 'x' }), 400, 'bad_request');
    await expectError(await post('/v1/batches', { endpoint: '/v1/chat/completions' }), 400, 'bad_request');
    await expectError(await post('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'x' }] }), 400, 'bad_request');
    // There but of the wrong type or empty: 422 naming it, as on the inference routes (400 'missing' before).
    const embeddingModel = await expectError(await post('/v1/embeddings', { model: 42, input: 'x' }), 422, 'validation_error');
    expect(embeddingModel.error.details?.fields).toEqual({ model: 'must be a non-empty string' });
    const batchFile = await expectError(await post('/v1/batches', { endpoint: '/v1/chat/completions', input_file_id: 7 }), 422, 'validation_error');
    expect(batchFile.error.details?.fields).toEqual({ input_file_id: 'must be a non-empty string' });
    const countModel = await expectError(await post('/v1/messages/count_tokens', { model: '', messages: [{ role: 'user', content: 'x' }] }), 422, 'validation_error');
    expect(countModel.error.details?.fields).toEqual({ model: 'must be a non-empty string' });
    const form = new FormData();
    form.append('purpose', 'batch');
    const file = await expectError(await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form }), 400, 'bad_request');
    expect(file.error.param).toBe('file');
  });

  it('400 bad_request for an empty conversation in every client format (the mock answers as OpenAI does)', async () => {
    const chat = await expectError(await post('/v1/chat/completions', { model: 'mock/echo', messages: [] }), 400, 'bad_request');
    expect(chat.error.message).toContain('empty array');
    await expectError(await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: [] }), 400, 'bad_request');
    await expectError(await post('/v1/responses', { model: 'mock/echo', input: [] }), 400, 'bad_request');
  });

  it('422 validation_error naming a required field of the wrong type, on every inference route', async () => {
    const chat = await expectError(await post('/v1/chat/completions', { model: 'mock/echo', messages: 'text' }), 422, 'validation_error');
    expect(chat.error.details?.fields).toEqual({ messages: 'must be an array' });
    expect(chat.error.param).toBe('messages');
    const messages = await expectError(await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: 'text' }), 422, 'validation_error');
    expect(messages.error.details?.fields).toEqual({ messages: 'must be an array' });
    const responses = await expectError(await post('/v1/responses', { model: 42, input: 'hi' }), 422, 'validation_error');
    expect(responses.error.details?.fields).toEqual({ model: 'must be a non-empty string' });
  });

  it('422 validation_error with field details for an invalid parameter', async () => {
    // mock/echo speaks Chat: a Messages request is converted, and a role it cannot convert is the gateway's 422.
    const body = await expectError(await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: [{ role: 'wizard', content: 'x' }] }), 422, 'validation_error');
    expect(Object.keys(body.error.details?.fields ?? {})[0]).toMatch(/^messages\[0\]/);
  });

  it('400 bad_request naming the block when unknown block types leave a converted Messages message empty (was the upstream\'s "empty array")', async () => {
    const only = await expectError(await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'nope' }] }] }), 400, 'bad_request');
    expect(only.error.param).toBe('messages[0].content[0].type');
    expect(only.error.message).toContain("'nope'");
    const later = await expectError(await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yes' }, { role: 'user', content: [{ type: 'nope' }, { type: 'nope2' }] }] }), 400, 'bad_request');
    expect(later.error.param).toBe('messages[2].content[0].type');
    // Something left: the unknown block is skipped as before.
    const kept = await post('/v1/messages', { model: 'mock/echo', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'nope' }, { type: 'text', text: 'hi' }] }] });
    expect(kept.status).toBe(200);
  });

  it('404 model_not_found, not_found for unknown routes, 405 for a wrong method', async () => {
    await expectError(await post('/v1/chat/completions', { model: 'mock/nope', messages: [{ role: 'user', content: 'x' }] }), 404, 'model_not_found');
    await expectError(await post('/v1/chat/completions', { model: 'nope', messages: [{ role: 'user', content: 'x' }] }), 404, 'model_not_found');
    await expectError(await fetch(`${gw.url}/v1/nothing-here`), 404, 'not_found');
    // (GET /v1/chat/completions is OpenAI's list of stored completions: a 404 that says the gateway keeps none.)
    const res = await fetch(`${gw.url}/v1/embeddings`, { headers: { authorization: `Bearer ${gw.key}` } });
    const notAllowed = await expectError(res, 405, 'method_not_allowed');
    expect(notAllowed.error).toMatchObject({ type: 'invalid_request_error', param: null });
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  // A client whose base URL ends in '/' sends `//v1/files`: that is an API path, never the dashboard's page (was a 200 of HTML for a GET).
  it("404 not_found naming the route for a path with a doubled slash, over HTTP/1.1, GET and POST", async () => {
    const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const url = new URL(gw.url);
        const req = http.request({ host: url.hostname, port: url.port, method, path, headers: { authorization: `Bearer ${gw.key}`, ...headers } });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const chat = JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'x' }] });
    for (const [method, path, meant, body] of [
      ['GET', '//v1/files', '/v1/files'],
      ['GET', '//v1/models', '/v1/models'],
      ['GET', '/v1//models', '/v1/models'],
      ['POST', '//v1/chat/completions', '/v1/chat/completions', chat],
      ['POST', '/v1//chat/completions', '/v1/chat/completions', chat],
    ] as const) {
      const res = await send(method, path, body ? { 'content-type': 'application/json' } : {}, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.type, `${method} ${path}`).toContain('application/json');
      const error = JSON.parse(res.body).error;
      expect(error, `${method} ${path}`).toMatchObject({ code: 'not_found', details: { did_you_mean: meant } });
      expect(error.message).toContain(`${method} ${path}.`);
      expect(error.message).toContain("doubled slash");
    }
    // Unknown API paths with a doubled slash are a JSON 404 too; Anthropic's client gets its own envelope.
    const unknown = await send('GET', '//v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('not_found');
    const anthropic = await send('POST', '//v1/messages', { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, '{}');
    expect(anthropic.status).toBe(404);
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    // A dashboard page with a doubled slash is still the page.
    expect((await send('GET', '//usage')).type).toContain('text/html');
  });

  it('426 upgrade_required for a WebSocket upgrade on an HTTP route (Codex reads it as "no WebSocket here" and uses HTTPS at once)', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${gw.key}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('upgrade', () => reject(new Error('the gateway accepted a WebSocket upgrade')));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(426);
    expect(JSON.parse(body).error).toMatchObject({ code: 'upgrade_required', type: 'invalid_request_error' });
    expect(JSON.parse(body).error.message).toContain('POST /v1/responses');
  });

  it('413 request_too_large over the body limit, declared or chunked, naming the setting that applies', async () => {
    const big = JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'x'.repeat(10_000) }] });
    const declared = await expectError(await post('/v1/chat/completions', big), 413, 'request_too_large');
    expect(declared.error.message).toBe('The request body exceeds the limit of 4096 bytes (server.bodyLimits.inference).');
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect((await expectError(res, 413, 'request_too_large')).error.message).toContain('(server.bodyLimits.inference)');
    // Each route's 413 names where its own bound comes from: `other` for a batch, the tighter of
    // `batches.maxFileBytes` and `inference` for a Message Batch.
    const batch = await expectError(await post('/v1/batches', { endpoint: '/v1/chat/completions', input_file_id: 'x'.repeat(7000) }), 413, 'request_too_large');
    expect(batch.error.message).toBe('The request body exceeds the limit of 6144 bytes (server.bodyLimits.other).');
    const messageBatch = await expectError(await post('/v1/messages/batches', { requests: [{ custom_id: 'a', params: { model: 'mock/echo', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(3500) }] } }] }), 413, 'request_too_large');
    expect(messageBatch.error.message).toBe('The request body exceeds the limit of 3072 bytes (batches.maxFileBytes).');
  });

  it('413 request_too_large for a chunked multipart upload over the media limit (was a bare 500)', async () => {
    const boundary = 'gwboundary';
    const form = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nmock/whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n${'x'.repeat(20_000)}\r\n--${boundary}--\r\n`;
    for (const route of ['/v1/audio/transcriptions', '/v1/images/edits']) {
      const chunked = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(form));
          controller.close();
        },
      });
      const res = await fetch(`${gw.url}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: chunked,
        duplex: 'half',
      } as RequestInit);
      const body = await expectError(res, 413, 'request_too_large');
      expect(body.error.message).toBe('The request body exceeds the limit of 8192 bytes (server.bodyLimits.media).');
    }
  });

  it('media, models, usage and auth errors carry type and param too', async () => {
    const image = await expectError(await post('/v1/images/generations', { model: 'mock/image', prompt: 'x', n: 99 }), 422, 'validation_error');
    expect(image.error).toMatchObject({ type: 'invalid_request_error', param: 'n' });
    const speech = await expectError(await post('/v1/audio/speech', { model: 'mock/tts', input: 'x', voice: 'nobody' }), 422, 'validation_error');
    expect(speech.error.param).toBe('voice');
    const model = await expectError(await fetch(`${gw.url}/v1/models/mock/nope`, { headers: { authorization: `Bearer ${gw.key}` } }), 404, 'model_not_found');
    expect(model.error.type).toBe('invalid_request_error');
    const activity = await expectError(await fetch(`${gw.url}/v1/activity?date=yesterday`, { headers: { authorization: `Bearer ${gw.key}` } }), 400, 'bad_request');
    expect(activity.error.param).toBe('date');
    const noPassword = await expectError(await post('/api/auth/login', { email: 'nobody@example.com' }), 400, 'bad_request');
    expect(noPassword.error).toMatchObject({ param: 'password', details: { missing: ['password'] } });
    await expectError(await post('/api/auth/login', { email: 'nobody@example.com', password: 42 }), 422, 'validation_error');
    // An empty email is a string too short, not one of the wrong type (zod's own message, as before 45fa3c3).
    const emptyEmail = await expectError(await post('/api/auth/login', { email: '', password: 'x' }), 422, 'validation_error');
    expect(emptyEmail.error.message).not.toContain('must be a string');
    expect(emptyEmail.error.message).toMatch(/>=1 characters/);
    const login = await expectError(await post('/api/auth/login', { email: 'nobody@example.com', password: 'wrong password' }), 401, 'authentication_error');
    expect(login.error).toMatchObject({ type: 'authentication_error', param: null });
    const media = await expectError(await fetch(`${gw.url}/v1/media/generations`), 401, 'authentication_error');
    expect(media.error.type).toBe('authentication_error');
  });

  it('keeps a client correlation id', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { 'x-correlation-id': 'trace-123' } });
    const body = await expectError(res, 401, 'authentication_error');
    expect(body.correlation_id).toBe('trace-123');
  });

  it('still serves after all of that', async () => {
    const res = await post('/v1/chat/completions', { model: 'mock/echo', messages: [{ role: 'user', content: 'alive' }] });
    expect(res.status).toBe(200);
  });
});
