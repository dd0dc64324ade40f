/**
 * Behind a reverse proxy that ends TLS, the gateway sees `http://` and the proxy's Host: the URLs
 * Gemini's Files API hands out (the resumable upload's X-Goog-Upload-URL, which @google/genai then
 * sends its key to, and a File's `uri`) were made from that, so a client on
 * `https://gateway.example.com` was told to send its chunks, and its key, to
 * `http://gateway.example.com/…`. Where the operator has said the origin clients use
 * (`media.publicBaseURL`, which docs/media.md asks for behind a proxy), those URLs are on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const PUBLIC = 'https://gateway.example.test';

describe("Gemini's Files API URLs on the configured public origin", () => {
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, media: { publicBaseURL: `${PUBLIC}/` } } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('the upload URL and the File uri are on media.publicBaseURL, not the Host the request came with', async () => {
    const start = await fetch(`${gw.url}/upload/v1beta/files`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json', 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '5' },
      body: JSON.stringify({ file: { displayName: 'note', mimeType: 'text/plain' } }),
    });
    const url = start.headers.get('x-goog-upload-url')!;
    expect(url.startsWith(`${PUBLIC}/upload/v1beta/files?upload_id=`)).toBe(true);
    // The proxy would pass it on to the gateway: the same path and query.
    const local = new URL(url);
    const done = await fetch(`${gw.url}${local.pathname}${local.search}`, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' }, body: 'hello' });
    const { file } = (await done.json()) as { file: { name: string; uri: string } };
    expect(file.uri).toBe(`${PUBLIC}/v1beta/${file.name}`);
    const got = (await (await fetch(`${gw.url}/v1/${file.name}`, { headers: { 'x-goog-api-key': gw.key! } })).json()) as { uri: string };
    expect(got.uri).toBe(`${PUBLIC}/v1beta/${file.name}`);
    const listed = (await (await fetch(`${gw.url}/v1beta/files`, { headers: { 'x-goog-api-key': gw.key! } })).json()) as { files: Array<{ uri: string }> };
    expect(listed.files.map((f) => f.uri)).toEqual([`${PUBLIC}/v1beta/${file.name}`]);
  });
});
