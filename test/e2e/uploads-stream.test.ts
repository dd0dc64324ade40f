import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { readAnswer } from '../helpers/read-answer.ts';
import { until } from '../helpers/until.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 199 * MB;
const BOUNDARY = 'gw-upload-boundary-7f3a';
const CHUNK = Buffer.alloc(MB, '{"custom_id":"x","body":{}}\n');

/** The RSS of a process in bytes (Linux /proc). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for process ${pid} (it exited)`);
  return Number(kb[1]) * 1024;
}

/** Uploads `bytes` of file to /v1/files, streamed from a 1 MB buffer (the test never holds the file). */
function upload(gw: SpawnedGateway, bytes: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': head.length + bytes + tail.length },
    });
    readAnswer(req).then(resolve, reject);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const piece = Math.min(CHUNK.length, bytes - sent);
        sent += piece;
        if (!req.write(piece === CHUNK.length ? CHUNK : CHUNK.subarray(0, piece))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
}

// Issue 27 §5: one 199 MB upload peaked at 1.28 GB RSS, three at once at 2.84 GB; no bound on
// concurrent uploads and no storage quota per account.
for (const backend of ['file', 'postgres'] as const) {
  describe(`uploads stream to the store (${backend})`, () => {
    let gw: SpawnedGateway;
    let dropDb: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      let store: Record<string, unknown> | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        dropDb = db.drop;
        store = { postgres: db.url };
      }
      gw = await spawnGateway({
        config: {
          providers: { mock: { plugin: 'mock' } },
          ...(store ? { store } : {}),
          storage: { uploadsConcurrency: 3, uploadsPerAccount: 4, fileQuotaBytes: 700 * MB },
        },
      });
    }, 60_000);
    afterAll(async () => {
      await gw?.stop();
      await dropDb?.();
    });

    it('three concurrent 199 MB uploads add less than 300 MB RSS; the bounds refuse the rest', { timeout: 300_000 }, async () => {
      const pid = gw.process.pid!;
      const small = await upload(gw, 1024); // warm: the first upload's code is loaded
      expect(small.status).toBe(200);
      const before = rssOf(pid);
      let peak = before;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, rssOf(pid));
        } catch {
          clearInterval(sampler); // the process died: the uploads fail and say so
        }
      }, 25);
      const uploads = [upload(gw, FILE_BYTES), upload(gw, FILE_BYTES), upload(gw, FILE_BYTES)];
      let refused: { status: number; body: Record<string, unknown> };
      try {
        // While three run (each has its temp file in the data dir), a fourth finds the instance full.
        await until('three uploads in flight', async () => (fs.readdirSync(path.join(gw.dataDir, 'uploads')).length === 3 ? true : undefined), 60_000);
        refused = await upload(gw, 1024);
        const done = await Promise.all(uploads);
        for (const { status, body } of done) {
          expect(status).toBe(200);
          expect(body).toMatchObject({ object: 'file', bytes: FILE_BYTES, filename: 'big.jsonl', purpose: 'user_data' });
        }
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssOf(pid));
      console.info(`${backend}: three 199 MB uploads added ${Math.round((peak - before) / MB)} MB RSS (from ${Math.round(before / MB)} MB)`);
      expect(peak - before).toBeLessThan(300 * MB);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: { code: 'service_unavailable' } });

      // The account keeps 3 × 199 MB + 1 KB of its 700 MB: the next 199 MB is refused, before its body is read.
      const over = await upload(gw, FILE_BYTES);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ error: { code: 'quota_exceeded' } });

      // The contents are there, byte for byte in size; a delete makes room again.
      const list = (await (await fetch(`${gw.url}/v1/files`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as { data: Array<{ id: string; bytes: number }> };
      const big = list.data.filter((f) => f.bytes === FILE_BYTES);
      expect(big).toHaveLength(3);
      const content = await fetch(`${gw.url}/v1/files/${big[0].id}/content`, { headers: { authorization: `Bearer ${gw.key}` } });
      expect(content.status).toBe(200);
      let received = 0;
      for await (const chunk of content.body!) received += (chunk as Uint8Array).length;
      expect(received).toBe(FILE_BYTES);
      expect((await fetch(`${gw.url}/v1/files/${big[0].id}`, { method: 'DELETE', headers: { authorization: `Bearer ${gw.key}` } })).status).toBe(200);
      expect((await upload(gw, 10 * MB)).status).toBe(200);
    });
  });
}
