import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { readAnswer } from '../helpers/read-answer.ts';
import { until } from '../helpers/until.ts';

const MB = 1024 * 1024;
const BOUNDARY = 'gw-quota-race-5c1d';

/** An upload whose file part is sent in two halves: `second()` sends the rest when the test says so. */
function startUpload(gw: SpawnedGateway, bytes: number): { second: () => void; answer: Promise<{ status: number; body: Record<string, unknown> }> } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="f.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const req = http.request(`${gw.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': head.length + bytes + tail.length },
  });
  const answer = readAnswer(req);
  const half = Math.floor(bytes / 2);
  req.write(head);
  req.write(Buffer.alloc(half, 'x'));
  return { second: () => req.end(Buffer.concat([Buffer.alloc(bytes - half, 'x'), tail])), answer };
}

// Issue 27 §5: concurrent uploads of one account used to each take the quota's room left.
describe('the file quota is reserved per upload', () => {
  let gw: SpawnedGateway;
  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, storage: { uploadsPerAccount: 4, fileQuotaBytes: 3 * MB } } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('two concurrent 2 MB uploads against a 3 MB quota: one stored, the other 429 quota_exceeded', { timeout: 60_000 }, async () => {
    const first = startUpload(gw, 2 * MB);
    // The first is in flight (its temp file exists) when the second starts.
    const inFlight = () => {
      try {
        return fs.readdirSync(path.join(gw.dataDir, 'uploads')).length;
      } catch {
        return 0; // the folder is made by the first upload
      }
    };
    await until('the first upload in flight', async () => (inFlight() === 1 ? true : undefined), 30_000);
    const second = startUpload(gw, 2 * MB);
    second.second();
    const refused = await second.answer;
    first.second();
    const stored = await first.answer;
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ object: 'file', bytes: 2 * MB });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'quota_exceeded' } });
    // Once the first is done and its reservation is gone, the room left (1 MB) is what it is.
    const small = startUpload(gw, MB / 2);
    small.second();
    expect((await small.answer).status).toBe(200);
  });
});
