// A chunk of a Gemini resumable upload is streamed to a temp file as a /v1/files upload is, so it
// holds a place in the same bounds (storage.uploadsPerAccount, storage.uploadsConcurrency): else
// any number of chunk requests at once, each up to the declared size, filled the data dir's disk.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/until.ts';
import { inProcessGateway, type InProcessGateway } from '../../media/in-process-app.ts';

let gw: InProcessGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const SIZE = 64 * 1024;

/** Starts a resumable upload of SIZE bytes; its upload URL's path and query. */
async function start(g: InProcessGateway): Promise<string> {
  const res = await g.request('/upload/v1beta/files', {
    method: 'POST',
    headers: { 'x-goog-api-key': g.apiKey, 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(SIZE), 'content-type': 'application/json' },
    body: JSON.stringify({ file: { displayName: 'held', mimeType: 'text/plain' } }),
  });
  expect(res.status).toBe(200);
  const url = new URL(res.headers.get('x-goog-upload-url')!);
  return `${url.pathname}${url.search}`;
}

function chunk(g: InProcessGateway, url: string, body: BodyInit, command = 'upload'): Promise<Response> {
  return g.request(url, { method: 'POST', headers: { 'x-goog-api-key': g.apiKey, 'x-goog-upload-command': command, 'x-goog-upload-offset': '0' }, body, duplex: 'half' } as RequestInit);
}

describe('Gemini resumable upload chunks and the upload bounds', () => {
  it('a chunk being received holds a place: another one of the account waits for it (429), a /v1/files upload too', async () => {
    gw = await inProcessGateway({ providers: { mock: { plugin: 'mock' } }, storage: { uploadsPerAccount: 1, uploadsConcurrency: 4 } });
    const g = gw;
    const first = await start(g);
    const second = await start(g);
    // A chunk whose client sends slowly: its first bytes are on disk, the rest not sent yet.
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const slow = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) });
    feed.enqueue(new Uint8Array(1024));
    const held = chunk(g, first, slow);
    const uploads = path.join(g.dataDir, 'uploads');
    await until('the slow chunk staged', async () => (fs.existsSync(uploads) && fs.readdirSync(uploads).some((name) => fs.statSync(path.join(uploads, name)).size > 0) ? true : undefined));

    const other = await chunk(g, second, new Uint8Array(SIZE), 'upload, finalize');
    expect(other.status).toBe(429);
    const form = new FormData();
    form.append('purpose', 'user_data');
    form.append('file', new Blob(['{"a":1}\n']), 'a.jsonl');
    const file = await g.request('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${g.apiKey}` }, body: form });
    expect(file.status).toBe(429);

    // Once the slow chunk is in, the place is free again.
    feed.enqueue(new Uint8Array(SIZE - 1024));
    feed.close();
    expect((await held).status).toBe(200);
    expect((await chunk(g, second, new Uint8Array(SIZE), 'upload, finalize')).status).toBe(200);
  });
});

describe('Gemini resumable uploads and the file quota', () => {
  it('an open resumable upload holds its declared size against a /v1/files upload, as it does against another resumable one', async () => {
    gw = await inProcessGateway({ providers: { mock: { plugin: 'mock' } }, storage: { fileQuotaBytes: 100_000 } });
    const g = gw;
    const res = await g.request('/upload/v1beta/files', {
      method: 'POST',
      headers: { 'x-goog-api-key': g.apiKey, 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '80000', 'content-type': 'application/json' },
      body: JSON.stringify({ file: { displayName: 'big', mimeType: 'text/plain' } }),
    });
    expect(res.status).toBe(200);
    const url = new URL(res.headers.get('x-goog-upload-url')!);
    // 80,000 of the 100,000 are the open upload's: 60,000 more do not fit.
    const form = new FormData();
    form.append('purpose', 'user_data');
    form.append('file', new Blob([new Uint8Array(60_000)]), 'a.bin');
    const file = await g.request('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${g.apiKey}` }, body: form });
    expect(file.status).toBe(429);
    expect(await file.json()).toMatchObject({ error: { code: 'quota_exceeded' } });
    // The open upload finishes within the quota.
    expect((await chunk(g, `${url.pathname}${url.search}`, new Uint8Array(80_000), 'upload, finalize')).status).toBe(200);
  });
});
