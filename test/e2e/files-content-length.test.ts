/**
 * A file's content says its length: `GET`/`HEAD /v1/files/{id}/content` (OpenAI's face) and the
 * Gemini face's `files/{id}:download?alt=media` carry `Content-Length`, as OpenAI's and Google's do,
 * so a client can size a download (or check it with HEAD) before reading it.
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const CONTENT = '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"mock/echo","messages":[{"role":"user","content":"héllo"}]}}\n';

describe('a file download carries its Content-Length', () => {
  let gw: SpawnedGateway;
  let id: string;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } } } });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0, timeout: 15_000 });
    id = (await openai.files.create({ file: await toFile(Buffer.from(CONTENT), 'in.jsonl'), purpose: 'batch' })).id;
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it.each([
    ['/v1/files/{id}/content', { authorization: 'Bearer KEY' }],
    ['/v1beta/files/{id}:download?alt=media', { 'x-goog-api-key': 'KEY' }],
  ])('%s: HEAD and GET say the size in bytes', async (route, auth) => {
    const url = `${gw.url}${route.replace('{id}', id)}`;
    const headers = Object.fromEntries(Object.entries(auth).map(([name, value]) => [name, value.replace('KEY', gw.key!)]));
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(CONTENT)));
    const get = await fetch(url, { headers });
    expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(CONTENT)));
    expect(await get.text()).toBe(CONTENT);
  });
});
