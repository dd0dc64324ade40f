// A Gemini file batch's responses file (`files/batch-…`) was made whole on every read: every
// `GET files/batch-…` (the resource, for its sizeBytes) read the input and result files and
// built all of the JSONL, and a download built it whole before its first byte (20,000 lines of
// 2.3 KB: 1.0–1.6 s and up to +200 MB of peak RSS per metadata read; bench/gemini-responses-file-bench.ts).
// Now the size is counted once and kept on the batch, and a download is streamed as it is made.
import { afterEach, describe, expect, it } from 'vitest';
import { newBatchRecord } from '../../src/batches/index.ts';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';

let gw: InProcessGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe("a Gemini file batch's responses file", () => {
  it('a metadata read counts the size once (later ones read no file); a download streams the lines in pieces, in order', async () => {
    gw = await inProcessGateway();
    const store = gw.deps.store;
    const now = Math.floor(gw.clock.now() / 1000);
    const N = 3000;
    const input = Array.from({ length: N }, (_, i) => JSON.stringify({ custom_id: `request-${i + 1}`, method: 'POST', url: '/v1beta/models/mock/echo:generateContent', body: { model: 'mock/echo', contents: [{ parts: [{ text: `q${i}` }] }] }, key: `k${i}` })).join('\n');
    // The output file in another order than the input (lines end as they finish).
    const output = Array.from({ length: N }, (_, j) => {
      const i = N - 1 - j;
      return JSON.stringify({ id: `r${i}`, custom_id: `request-${i + 1}`, response: { status_code: 200, body: { candidates: [{ content: { role: 'model', parts: [{ text: `answer ${i} ${'y'.repeat(60)}` }] }, finishReason: 'STOP' }] } }, error: null });
    }).join('\n');
    const file = (id: string, purpose: string, text: string) =>
      store.files.create({ id, accountId: gw!.accountId, bytes: Buffer.byteLength(text), created_at: now, expires_at: null, filename: `${id}.jsonl`, purpose } as never, Buffer.from(text));
    await file('file-geminput', 'batch', input);
    await file('file-gemoutput', 'batch_output', output);
    const record = newBatchRecord({ id: 'batch_gemresponses', accountId: gw.accountId, keyId: null, endpoint: '/v1beta/models/mock/echo:generateContent', input_file_id: 'file-geminput', completion_window: '24h', created_at: now, windowSeconds: 86_400, metadata: null, total: N, face: 'gemini' });
    await store.batches.create({ ...record, status: 'completed', completed_at: now, output_file_id: 'file-gemoutput', request_counts: { total: N, completed: N, failed: 0 }, model: 'mock/echo', inputFile: 'files/uploaded' });

    // Count the reads of file bytes from here on.
    let reads = 0;
    const files = store.files;
    const content = files.content.bind(files);
    const chunks = files.contentChunks.bind(files);
    files.content = (...args) => ((reads += 1), content(...args));
    files.contentChunks = (...args) => ((reads += 1), chunks(...args));

    const headers = { 'x-goog-api-key': gw.apiKey };
    const meta = async () => {
      const res = await gw!.request('/v1beta/files/batch-gemresponses', { headers });
      expect(res.status).toBe(200);
      return (await res.json()) as { name: string; sizeBytes: string };
    };
    const first = await meta();
    expect(first.name).toBe('files/batch-gemresponses');
    const afterFirst = reads;
    expect(afterFirst).toBeGreaterThan(0);
    expect(await meta()).toEqual(first);
    expect(reads).toBe(afterFirst); // the size was kept: no file read, no line made

    const res = await gw.request('/v1beta/files/batch-gemresponses:download?alt=media', { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jsonl');
    const pieces: Uint8Array[] = [];
    for await (const piece of res.body!) pieces.push(piece as Uint8Array);
    expect(pieces.length).toBeGreaterThan(1); // sent as it is made, not one buffer of the whole
    const body = Buffer.concat(pieces);
    expect(String(body.length)).toBe(first.sizeBytes);
    const lines = body.toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as { key: string; response: { candidates: Array<{ content: { parts: Array<{ text: string }> } }> } });
    expect(lines).toHaveLength(N);
    expect(lines.map((l) => l.key)).toEqual(Array.from({ length: N }, (_, i) => `k${i}`));
    expect(lines[7].response.candidates[0].content.parts[0].text).toMatch(/^answer 7 /);
    expect((await store.batches.get('batch_gemresponses'))?.responsesBytes).toBe(body.length);
  }, 60_000);

  it('result files in input order (as finishBatch writes them) are read alongside the input, never whole; the same lines as from files out of order', async () => {
    gw = await inProcessGateway();
    const store = gw.deps.store;
    const now = Math.floor(gw.clock.now() / 1000);
    const N = 500;
    const input = Array.from({ length: N }, (_, i) => JSON.stringify({ custom_id: `request-${i + 1}`, method: 'POST', url: '/v1beta/models/mock/echo:generateContent', body: { model: 'mock/echo', contents: [{ parts: [{ text: `q${i}` }] }] }, key: `k${i}` })).join('\n');
    // Every seventh line failed (the error file), the others answered; the last failed line is there twice (the last one counts).
    const ok = (i: number) => JSON.stringify({ id: `r${i}`, custom_id: `request-${i + 1}`, response: { status_code: 200, body: { candidates: [{ content: { role: 'model', parts: [{ text: `answer ${i}` }] }, finishReason: 'STOP' }] } }, error: null });
    const failed = (i: number, message = `failed ${i}`) => JSON.stringify({ id: `e${i}`, custom_id: `request-${i + 1}`, response: { status_code: 500, body: { error: { code: 500, message, status: 'INTERNAL' } } }, error: null });
    const indices = Array.from({ length: N }, (_, i) => i);
    const outputLines = indices.filter((i) => i % 7 !== 0).map(ok);
    const errorLines = [...indices.filter((i) => i % 7 === 0).map((i) => failed(i)), failed(497, 'the last word')];
    const file = (id: string, purpose: string, text: string) =>
      store.files.create({ id, accountId: gw!.accountId, bytes: Buffer.byteLength(text), created_at: now, expires_at: null, filename: `${id}.jsonl`, purpose } as never, Buffer.from(text));
    await file('file-ordinput', 'batch', input);
    await file('file-ordoutput', 'batch_output', outputLines.join('\n'));
    await file('file-orderrors', 'batch_output', errorLines.join('\n'));
    await file('file-mixoutput', 'batch_output', [...outputLines].reverse().join('\n'));
    await file('file-mixerrors', 'batch_output', [...errorLines].reverse().join('\n') + '\n' + failed(497, 'the last word'));
    for (const [id, output, errors] of [['batch_ordered', 'file-ordoutput', 'file-orderrors'], ['batch_mixed', 'file-mixoutput', 'file-mixerrors']]) {
      const record = newBatchRecord({ id, accountId: gw.accountId, keyId: null, endpoint: '/v1beta/models/mock/echo:generateContent', input_file_id: 'file-ordinput', completion_window: '24h', created_at: now, windowSeconds: 86_400, metadata: null, total: N, face: 'gemini' });
      await store.batches.create({ ...record, status: 'completed', completed_at: now, output_file_id: output, error_file_id: errors, request_counts: { total: N, completed: outputLines.length, failed: N - outputLines.length }, model: 'mock/echo', inputFile: 'files/uploaded' });
    }
    let wholeReads = 0;
    const files = store.files;
    const content = files.content.bind(files);
    files.content = (...args) => ((wholeReads += 1), content(...args));
    const download = async (id: string) => {
      const res = await gw!.request(`/v1beta/files/${id.replace('batch_', 'batch-')}:download?alt=media`, { headers: { 'x-goog-api-key': gw!.apiKey } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const ordered = await download('batch_ordered');
    expect(wholeReads).toBe(0); // read a line at a time
    const mixed = await download('batch_mixed');
    expect(wholeReads).toBe(2); // out of order: held whole and indexed, as before
    expect(ordered).toBe(mixed);
    const lines = ordered.trim().split('\n').map((line) => JSON.parse(line) as { key: string; response?: { candidates: Array<{ content: { parts: Array<{ text: string }> } }> }; error?: { message: string } });
    expect(lines).toHaveLength(N);
    expect(lines.map((l) => l.key)).toEqual(indices.map((i) => `k${i}`));
    expect(lines[1].response!.candidates[0].content.parts[0].text).toBe('answer 1');
    expect(lines[7].error).toEqual({ code: 500, message: 'failed 7', status: 'INTERNAL' });
    expect(lines[497].error!.message).toBe('the last word');
  }, 60_000);
});
