/**
 * Anthropic Message Batches results (`GET /v1/messages/batches/{id}/results`) and the batch's
 * view (its `request_counts`) of a large ended batch, read with bounded memory: the results go out
 * a line at a time from the stored files, the counts are counted the same way. Before, the route
 * read every output and error line into memory, parsed it, and built the whole answer (a batch
 * of 256 MB of results held over a GB). A small batch's bytes are what they were. Run in a
 * process of its own (vitest.config.ts ISOLATED): it measures this process's memory.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../../src/store/index.ts';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';
import { aBatch } from '../../store/store.case.ts';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ENDPOINT = '/v1/messages';
/** Requests of the large batch; the first RAN of them ran (each a 100 KiB message), the rest were canceled. */
const REQUESTS = 3_000;
const RAN = 2_560;
const TEXT_BYTES = 100 * 1024;
/** What the answer may add to this process's resident memory: a few lines, never the batch. */
const BOUND = 48 * 1024 * 1024;

let gw: TestGateway;
let key: string;
let accountId: string;
let keyId: string;

const id = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;
const now = Math.floor(Date.now() / 1000);

async function file(content: Buffer, purpose: string): Promise<string> {
  const record = { id: id('file-'), accountId, bytes: content.length, created_at: now, expires_at: null, filename: `${purpose}.jsonl`, purpose };
  return (await gw.gateway.deps.store.files.create(record, content)).id;
}

const inputLine = (i: number) => `${JSON.stringify({ custom_id: `req-${i}`, method: 'POST', url: ENDPOINT, body: { model: 'mock/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } })}\n`;

function message(i: number, text: string) {
  return { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'mock/echo', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } };
}

function messageBatch(extra: Partial<BatchRecord>): BatchRecord {
  return aBatch(accountId, { id: id('msgbatch_'), keyId, endpoint: ENDPOINT, created_at: now, face: 'messages', ...extra });
}

beforeAll(async () => {
  gw = await makeGateway();
  ({ key, accountId, keyId } = await gw.account());
}, 60_000);
afterAll(() => gw?.close());

const headers = () => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });

describe('a small message batch', () => {
  it("answers its results with the same bytes as before: succeeded, errored (the upstream's error and the gateway's), canceled", async () => {
    const input = await file(Buffer.from([0, 1, 2, 3, 4].map(inputLine).join('')), 'batch');
    const output = await file(Buffer.from(`${JSON.stringify({ id: 'l0', custom_id: 'req-0', response: { status_code: 200, request_id: 'r0', body: message(0, 'héllo') }, error: null })}\n`), 'batch_output');
    const errors = await file(
      Buffer.from(
        [
          { id: 'l1', custom_id: 'req-1', response: { status_code: 400, request_id: 'r1', body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } } }, error: null },
          { id: 'l2', custom_id: 'req-2', response: null, error: { code: 'upstream_error', message: 'The upstream failed.' } },
          { id: 'l3', custom_id: 'req-3', response: null, error: { code: 'batch_cancelled', message: 'cancelled' } },
        ]
          .map((l) => `${JSON.stringify(l)}\n`)
          .join(''),
      ),
      'batch_output',
    );
    const batch = await gw.gateway.deps.store.batches.create(
      messageBatch({ input_file_id: input, output_file_id: output, error_file_id: errors, status: 'cancelled', cancelling_at: now, cancelled_at: now, request_counts: { total: 5, completed: 1, failed: 2 } }),
    );
    const res = await gw.fetch(`/v1/messages/batches/${batch.id}/results`, { headers: headers() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/binary');
    expect(await res.text()).toBe(
      [
        '{"custom_id":"req-0","result":{"type":"succeeded","message":{"id":"msg_0","type":"message","role":"assistant","model":"mock/echo","content":[{"type":"text","text":"héllo"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2}}}}',
        '{"custom_id":"req-1","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}}}',
        '{"custom_id":"req-2","result":{"type":"errored","error":{"type":"error","error":{"type":"api_error","message":"The upstream failed."}}}}',
        '{"custom_id":"req-3","result":{"type":"canceled"}}',
        '{"custom_id":"req-4","result":{"type":"canceled"}}',
        '',
      ].join('\n'),
    );
    const view = (await (await gw.fetch(`/v1/messages/batches/${batch.id}`, { headers: headers() })).json()) as { request_counts: unknown };
    expect(view.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 2, canceled: 2, expired: 0 });
    // Counted once, when first viewed: the counts stay what the batch ended with, and the next
    // views (a list page of large batches) read no file, even once its files are deleted.
    for (const id of [output, errors]) expect(await gw.gateway.deps.store.files.delete(accountId, id)).toBe(true);
    const again = (await (await gw.fetch(`/v1/messages/batches?limit=100`, { headers: headers() })).json()) as { data: Array<{ id: string; request_counts: unknown }> };
    expect(again.data.find((b) => b.id === batch.id)?.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 2, canceled: 2, expired: 0 });
  });

  it('answers a batch refused before it ran: every request errored, the one the check named with its reason', async () => {
    const input = await file(Buffer.from([0, 1].map(inputLine).join('')), 'batch');
    const batch = await gw.gateway.deps.store.batches.create(
      messageBatch({ input_file_id: input, status: 'failed', failed_at: now, errors: { object: 'list', data: [{ code: 'model_not_found', message: "No model 'x'.", param: 'body.model', line: 2 }] }, request_counts: { total: 2, completed: 0, failed: 0 } }),
    );
    const res = await gw.fetch(`/v1/messages/batches/${batch.id}/results`, { headers: headers() });
    expect(await res.text()).toBe(
      [
        `{"custom_id":"req-0","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"Not run: another request of the batch was refused (No model 'x'.)"}}}}`,
        `{"custom_id":"req-1","result":{"type":"errored","error":{"type":"error","error":{"type":"not_found_error","message":"No model 'x'."}}}}`,
        '',
      ].join('\n'),
    );
    const view = (await (await gw.fetch(`/v1/messages/batches/${batch.id}`, { headers: headers() })).json()) as { request_counts: unknown };
    expect(view.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 2, canceled: 0, expired: 0 });
  });
});

describe('a message batch with 256 MiB of results', () => {
  let batchId: string;
  let outputId: string;

  beforeAll(async () => {
    const input = await file(Buffer.from(Array.from({ length: REQUESTS }, (_, i) => inputLine(i)).join('')), 'batch');
    // Written a line at a time and stored from the file: the fixture itself raises no peak.
    const staged = path.join(gw.dataDir, 'staged-output.jsonl');
    const out = fs.createWriteStream(staged);
    const text = 'a'.repeat(TEXT_BYTES);
    let bytes = 0;
    for (let i = 0; i < RAN; i++) {
      const line = `${JSON.stringify({ id: `l${i}`, custom_id: `req-${i}`, response: { status_code: 200, request_id: `r${i}`, body: message(i, text) }, error: null })}\n`;
      bytes += Buffer.byteLength(line);
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const record = { id: id('file-'), accountId, bytes, created_at: now, expires_at: null, filename: 'output.jsonl', purpose: 'batch_output' };
    const output = (await gw.gateway.deps.store.files.createFromFile(record, staged)).id;
    outputId = output;
    const batch = await gw.gateway.deps.store.batches.create(
      messageBatch({ input_file_id: input, output_file_id: output, status: 'cancelled', cancelling_at: now, cancelled_at: now, request_counts: { total: REQUESTS, completed: RAN, failed: 0 } }),
    );
    batchId = batch.id;
  }, 120_000);

  /**
   * How far this process's resident memory rises above its highest so far while `path` is
   * answered and read a chunk at a time (the kernel's high-water mark: nothing sampled, nothing
   * missed between samples). A full GC every few chunks: the rise is what the answer keeps, not
   * the garbage V8 would have let pile up before collecting it.
   */
  async function measured(path: string, onChunk: (chunk: Uint8Array) => void): Promise<{ status: number; growth: number; chunks: number }> {
    gc();
    const before = process.resourceUsage().maxRSS * 1024;
    const res = await gw.fetch(path, { headers: { ...headers(), authorization: `Bearer ${key}` } });
    let chunks = 0;
    const reader = res.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      chunks += 1;
      onChunk(next.value);
      if (chunks % 64 === 0) gc();
    }
    const growth = process.resourceUsage().maxRSS * 1024 - before;
    return { status: res.status, growth, chunks };
  }

  it('counts its requests for the batch view with memory bounded', async () => {
    const parts: Uint8Array[] = [];
    const { status, growth } = await measured(`/v1/messages/batches/${batchId}`, (chunk) => parts.push(chunk));
    expect(status).toBe(200);
    const view = JSON.parse(Buffer.concat(parts).toString('utf8')) as { processing_status: string; request_counts: unknown };
    expect(view.processing_status).toBe('ended');
    expect(view.request_counts).toEqual({ processing: 0, succeeded: RAN, errored: 0, canceled: REQUESTS - RAN, expired: 0 });
    expect(growth).toBeLessThan(BOUND);
  }, 120_000);

  it('streams its results a line at a time: each request once, in order, memory bounded', async () => {
    let bytes = 0;
    let lines = 0;
    let succeeded = 0;
    let tail = Buffer.alloc(0);
    const { status, growth, chunks } = await measured(`/v1/messages/batches/${batchId}/results`, (chunk) => {
      bytes += chunk.length;
      let data = Buffer.concat([tail, chunk]);
      for (let end = data.indexOf(10); end >= 0; end = data.indexOf(10)) {
        const line = JSON.parse(data.toString('utf8', 0, end)) as { custom_id: string; result: { type: string; message?: { content: Array<{ text: string }> } } };
        expect(line.custom_id).toBe(`req-${lines}`);
        if (line.result.type === 'succeeded') {
          succeeded += 1;
          expect(line.result.message!.content[0].text).toHaveLength(TEXT_BYTES);
        } else expect(line.result).toEqual({ type: 'canceled' });
        lines += 1;
        data = data.subarray(end + 1);
      }
      tail = data;
    });
    expect(status).toBe(200);
    expect({ lines, succeeded, tail: tail.length }).toEqual({ lines: REQUESTS, succeeded: RAN, tail: 0 });
    expect(bytes).toBeGreaterThan(RAN * TEXT_BYTES);
    expect(chunks).toBeGreaterThan(RAN / 10);
    expect(growth).toBeLessThan(BOUND);
  }, 120_000);

  it('its output file downloads from /v1/files a piece at a time, memory bounded', async () => {
    const record = (await gw.gateway.deps.store.files.get(accountId, outputId))!;
    let bytes = 0;
    let first = '';
    const { status, growth, chunks } = await measured(`/v1/files/${outputId}/content`, (chunk) => {
      if (bytes === 0) first = Buffer.from(chunk).toString('utf8', 0, 40);
      bytes += chunk.length;
    });
    expect(status).toBe(200);
    expect(first.startsWith('{"id":"l0","custom_id":"req-0",')).toBe(true);
    expect(bytes).toBe(record.bytes);
    expect(growth).toBeLessThan(BOUND);
    expect(chunks).toBeGreaterThan(1);
  }, 120_000);
});
