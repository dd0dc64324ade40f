import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newBatchRecord } from '../../src/batches/index.ts';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';

let gw: InProcessGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe("a face batch's results past one JavaScript string (2^29 characters)", () => {
  it('GET /v1/messages/batches/{id}/results answers every result of a 545 MB output file (was a 500: Invalid string length)', async () => {
    gw = await inProcessGateway();
    const store = gw.deps.store;
    const now = Math.floor(gw.clock.now() / 1000);
    const N = 520;
    // 520 Messages answers of 1 MiB each, as the executor writes them.
    const text = 'x'.repeat(1024 * 1024 - 200);
    const staged = path.join(os.tmpdir(), `gw-large-results-${process.pid}.jsonl`);
    const out = fs.openSync(staged, 'w');
    for (let i = 0; i < N; i += 1) {
      const body = { id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }] };
      fs.writeSync(out, `${JSON.stringify({ id: `batch_req_${i}`, custom_id: `r${i}`, response: { status_code: 200, request_id: `r:${i}`, body }, error: null })}\n`);
    }
    fs.closeSync(out);
    const bytes = fs.statSync(staged).size;
    await store.files.createFromFile({ id: 'file-largeoutput', accountId: gw.accountId, bytes, created_at: now, expires_at: null, filename: 'out.jsonl', purpose: 'batch_output' }, staged);
    const record = newBatchRecord({ id: 'batch_largeresults', accountId: gw.accountId, keyId: null, endpoint: '/v1/messages', input_file_id: 'file-gone', completion_window: '24h', created_at: now, windowSeconds: 86_400, metadata: null, total: N, face: 'messages' });
    await store.batches.create({ ...record, status: 'completed', completed_at: now, output_file_id: 'file-largeoutput', request_counts: { total: N, completed: N, failed: 0 } });
    const res = await gw.request('/v1/messages/batches/batch_largeresults/results', { headers: { 'x-api-key': gw.apiKey, 'anthropic-version': '2023-06-01' } });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    let lines = 0;
    let first: { custom_id: string; result: { type: string } } | undefined;
    for (let start = 0; start < body.length; lines += 1) {
      const end = body.indexOf(10, start);
      if (lines === 0) first = JSON.parse(body.toString('utf8', start, end)) as typeof first;
      start = end + 1;
    }
    expect(lines).toBe(N);
    expect(first).toMatchObject({ custom_id: 'r0', result: { type: 'succeeded' } });
  }, 120_000);
});
