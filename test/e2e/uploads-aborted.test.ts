import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const BOUNDARY = 'gw-aborted-boundary-41c2';

/** Temp-file descriptors the gateway holds open under its uploads dir. */
function openUploadFds(pid: number, dir: string): number {
  let open = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(dir)) open += 1;
    } catch {
      // closed meanwhile
    }
  }
  return open;
}

/** Starts a multipart upload of `declared` bytes, sends `sent` of them, and waits until the temp file holds them; returns the socket. */
async function startUpload(gw: SpawnedGateway, declared: number, sent: number): Promise<net.Socket> {
  const head = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n`;
  const url = new URL(gw.url);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /v1/files HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${gw.key}\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${head.length + declared + 64}\r\n\r\n${head}`,
  );
  socket.write(Buffer.alloc(sent, 'x'));
  return socket;
}

describe('an upload whose client goes away mid-file', () => {
  let gw: SpawnedGateway;
  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, storage: { uploadsConcurrency: 2, uploadsPerAccount: 2 } } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('leaves no temp file, no open descriptor and no place in the upload bounds', { timeout: 60_000 }, async () => {
    const dir = path.join(gw.dataDir, 'uploads');
    const pid = gw.process.pid!;
    for (let round = 0; round < 3; round++) {
      const socket = await startUpload(gw, 1024 * 1024, 64 * 1024);
      await until('the part written to its temp file', async () => (fs.existsSync(dir) && fs.readdirSync(dir).some((name) => fs.statSync(path.join(dir, name)).size > 0) ? true : undefined));
      socket.destroy();
      await until('the temp file removed', async () => (fs.readdirSync(dir).length === 0 ? true : undefined));
      await until('its descriptor closed', async () => (openUploadFds(pid, dir) === 0 ? true : undefined));
    }
    // The bounds (2 at once) are free again: a whole upload goes through.
    const form = new FormData();
    form.append('purpose', 'user_data');
    form.append('file', new Blob(['{"a":1}\n']), 'b.jsonl');
    const answer = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form });
    expect(answer.status).toBe(200);
  });
});
