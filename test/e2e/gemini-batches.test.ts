import { ApiError, GoogleGenAI, JobState, type BatchJob } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Gemini's Batch API through the official `@google/genai` (`ai.batches`): create with inline
 * requests, get until it has ended, its inlined responses in order with their metadata, list,
 * cancel and delete, on the offline mock provider (converted: Gemini lines on a Chat provider),
 * and passed through to the strict Gemini fake.
 */
describe("Gemini's Batch API (models/{model}:batchGenerateContent, batches/{id}) through @google/genai", () => {
  let gw: SpawnedGateway;
  let ai: GoogleGenAI;
  let gemini: GeminiFake;

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key', finalText: 'From Gemini itself.' });
    gw = await spawnGateway({ config: { providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] }, mock: { plugin: 'mock' }, refusing: { plugin: 'mock', failFirst: 1, failStatus: 400 }, slow: { plugin: 'mock', latencyMs: 3_000 } }, batches: { concurrency: 1 } } });
    ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
  });
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  const ENDED = new Set<string>([JobState.JOB_STATE_SUCCEEDED, JobState.JOB_STATE_FAILED, JobState.JOB_STATE_CANCELLED, JobState.JOB_STATE_EXPIRED]);
  const ended = (name: string) =>
    until(`batch ${name} to end`, async () => {
      const job = await ai.batches.get({ name });
      return job.state && ENDED.has(job.state) ? job : undefined;
    });

  it('create inline → get until succeeded: one inlined response per request, in order, with its metadata; a refused request carries its error', async () => {
    const created: BatchJob = await ai.batches.create({
      model: 'mock/echo',
      src: [
        { contents: [{ role: 'user', parts: [{ text: 'hello one' }] }], metadata: { key: 'first' } },
        { model: 'refusing/echo', contents: [{ role: 'user', parts: [{ text: 'hello two' }] }], metadata: { key: 'second' } },
        { contents: 'hello three', config: { maxOutputTokens: 50 }, metadata: { key: 'third' } },
      ],
      config: { displayName: 'three questions' },
    });
    expect(created.name).toMatch(/^batches\/batch_/);
    expect(created).toMatchObject({ displayName: 'three questions', model: 'models/mock/echo' });
    expect([JobState.JOB_STATE_PENDING, JobState.JOB_STATE_RUNNING]).toContain(created.state);
    expect(created.createTime).toEqual(expect.any(String));

    const done = await ended(created.name!);
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(done.endTime).toEqual(expect.any(String));
    const responses = done.dest?.inlinedResponses ?? [];
    expect(responses.map((r) => r.metadata?.key)).toEqual(['first', 'second', 'third']);
    expect(responses[0].response?.candidates?.[0]?.content?.role).toBe('model');
    expect(responses[0].response?.candidates?.[0]?.content?.parts?.[0]?.text).toEqual(expect.any(String));
    expect(responses[0].response?.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(responses[1].response).toBeUndefined();
    expect(responses[1].error).toMatchObject({ code: 400, message: expect.any(String) });
    expect(responses[2].response?.candidates?.[0]?.finishReason).toBe('STOP');

    // The same batch on OpenAI's face.
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    expect(await openai.batches.retrieve(created.name!.slice('batches/'.length))).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
  }, 60_000);

  it("on a Gemini upstream each line is a passthrough: the request as the SDK wrote it, on the model's own generateContent URL", async () => {
    const created = await ai.batches.create({ model: 'google/gemini-2.5-flash', src: [{ contents: 'one', config: { temperature: 0.2 }, metadata: { key: 'a' } }, { contents: 'two', metadata: { key: 'b' } }] });
    const done = await ended(created.name!);
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const texts = done.dest?.inlinedResponses?.map((r) => (r.response?.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? '').join(''));
    expect(texts).toEqual(['From Gemini itself.', 'From Gemini itself.']);
    expect(gemini.rejections).toEqual([]);
    expect(gemini.requests.map((r) => r.path)).toEqual(['/v1beta/models/gemini-2.5-flash:generateContent', '/v1beta/models/gemini-2.5-flash:generateContent']);
    expect(gemini.requests[0].json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'one' }] }], generationConfig: { temperature: 0.2 } });
  }, 60_000);

  it('cancel a running batch: it ends cancelled with the unrun requests cancelled; list pages; delete hides it', async () => {
    const running = await ai.batches.create({ model: 'slow/echo', src: [0, 1, 2, 3].map((i) => ({ contents: `slow ${i}`, metadata: { key: `slow-${i}` } })) });
    await ai.batches.cancel({ name: running.name! });
    const done = await ended(running.name!);
    expect(done.state).toBe(JobState.JOB_STATE_CANCELLED);
    const responses = done.dest?.inlinedResponses ?? [];
    expect(responses).toHaveLength(4);
    expect(responses.some((r) => r.error?.code === 499 || r.error?.message?.includes('cancel'))).toBe(true);

    const first = await ai.batches.list({ config: { pageSize: 1 } });
    expect(first.page.map((b) => b.name)).toEqual([running.name]);
    const names: string[] = [];
    for await (const job of await ai.batches.list({ config: { pageSize: 1 } })) names.push(job.name!);
    expect(names).toHaveLength(3);
    expect(names[0]).toBe(running.name);

    await ai.batches.delete({ name: running.name! });
    const gone = await ai.batches.get({ name: running.name! }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).status).toBe(404);
    expect(JSON.parse((gone as ApiError).message).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const left: string[] = [];
    for await (const job of await ai.batches.list()) left.push(job.name!);
    expect(left).not.toContain(running.name);
  }, 60_000);

  it('a file source: ai.files.upload a JSONL file, create the batch on files/…, get until succeeded, ai.files.download the responses file (one line per request, in order, keyed)', async () => {
    const lines = [
      { key: 'photosynthesis', request: { contents: [{ parts: [{ text: 'Describe photosynthesis.' }] }], generation_config: { temperature: 0.7 } } },
      { key: 'pizza', request: { contents: [{ role: 'user', parts: [{ text: 'What is on a Margherita pizza?' }] }] } },
      { key: 'nowhere', request: { model: 'models/nobody/nothing', contents: [{ parts: [{ text: 'Who answers?' }] }] } },
    ];
    const jsonl = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
    // Google's own example names the MIME type 'jsonl'.
    const uploaded = await ai.files.upload({ file: new Blob([jsonl]), config: { displayName: 'my-batch-requests', mimeType: 'jsonl' } });
    expect(uploaded).toMatchObject({ displayName: 'my-batch-requests', mimeType: 'jsonl', sizeBytes: String(Buffer.byteLength(jsonl)), state: 'ACTIVE', source: 'UPLOADED' });
    expect(uploaded.name).toMatch(/^files\/[a-z0-9-]+$/);
    expect(uploaded.uri).toBe(`${gw.url}/v1beta/${uploaded.name}`);
    expect(await ai.files.get({ name: uploaded.name! })).toMatchObject({ name: uploaded.name, sizeBytes: uploaded.sizeBytes, mimeType: 'jsonl' });

    const created = await ai.batches.create({ model: 'mock/echo', src: uploaded.name!, config: { displayName: 'from a file' } });
    expect(created).toMatchObject({ displayName: 'from a file', model: 'models/mock/echo' });
    const done = await ended(created.name!);
    // A line that names a model the gateway cannot route fails the batch's input check, as on /v1/batches.
    expect(done.state).toBe(JobState.JOB_STATE_FAILED);
    expect(done.dest?.inlinedResponses).toBeUndefined();
    const resultName = done.dest?.fileName;
    expect(resultName).toMatch(/^files\/batch-/);
    const path = `${tempDir('gw-gemini-files-')}/results.jsonl`;
    await ai.files.download({ file: resultName!, downloadPath: path });
    const results = (await import('node:fs')).readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    expect(results.map((r) => r.key)).toEqual(['photosynthesis', 'pizza', 'nowhere']);
    expect(results.map((r) => r.error?.status)).toEqual(['INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
    expect(results[2].error.message).toContain('nobody/nothing');

    // The same file, its lines all routable: every request answered, in order.
    const good = await ai.files.upload({ file: new Blob([`${lines.slice(0, 2).map((line) => JSON.stringify(line)).join('\n')}\n`]), config: { mimeType: 'application/jsonl' } });
    const second = await ended((await ai.batches.create({ model: 'mock/echo', src: good.name! })).name!);
    expect(second.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    expect((await openai.batches.retrieve(second.name!.slice('batches/'.length))).request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    const answered = await fetch(`${gw.url}/v1beta/${second.dest!.fileName}:download?alt=media`, { headers: { 'x-goog-api-key': gw.key! } });
    expect(answered.status).toBe(200);
    const answers = (await answered.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    expect(answers.map((r) => [r.key, r.response.candidates[0].content.parts[0].text])).toEqual([
      ['photosynthesis', 'Describe photosynthesis.'],
      ['pizza', 'What is on a Margherita pizza?'],
    ]);
    expect(answers[0].response.usageMetadata.totalTokenCount).toBeGreaterThan(0);

    // Files list, and delete: the file is gone from both faces.
    const listed: string[] = [];
    for await (const file of await ai.files.list()) listed.push(file.name!);
    expect(listed).toEqual(expect.arrayContaining([uploaded.name, good.name]));
    await ai.files.delete({ name: good.name! });
    expect(((await ai.files.get({ name: good.name! }).catch((error: unknown) => error)) as ApiError).status).toBe(404);

    // The batch's responses file is deleted as any file is (DELETE /v1beta/files/batch-…: a 404 before); the
    // output file it is made from goes with it, and the batch still names it, as Google's does.
    const outputFile = (await openai.batches.retrieve(second.name!.slice('batches/'.length))).output_file_id!;
    await ai.files.delete({ name: second.dest!.fileName! });
    expect(((await ai.files.get({ name: second.dest!.fileName! }).catch((error: unknown) => error)) as ApiError).status).toBe(404);
    const gone = await fetch(`${gw.url}/v1beta/${second.dest!.fileName}:download?alt=media`, { headers: { 'x-goog-api-key': gw.key! } });
    expect(gone.status).toBe(404);
    expect(((await openai.files.retrieve(outputFile).catch((error: unknown) => error)) as { status?: number }).status).toBe(404);
    expect(((await ai.files.delete({ name: second.dest!.fileName! }).catch((error: unknown) => error)) as ApiError).status).toBe(404);
    expect((await ai.batches.get({ name: second.name! })).dest?.fileName).toBe(second.dest!.fileName);
  }, 60_000);

  it('a file upload in several chunks (upload, then upload, finalize at its offset), and the resumable protocol refused in Google\'s shape when misused', async () => {
    const headers = { 'x-goog-api-key': gw.key!, 'content-type': 'application/json', 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start' };
    const body = `${JSON.stringify({ key: 'k', request: { contents: [{ parts: [{ text: 'chunked' }] }] } })}\n`;
    const start = await fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers: { ...headers, 'x-goog-upload-header-content-length': String(body.length), 'x-goog-upload-header-content-type': 'application/jsonl' }, body: JSON.stringify({ file: { display_name: 'chunks' } }) });
    expect([start.status, start.headers.get('x-goog-upload-status')]).toEqual([200, 'active']);
    const url = start.headers.get('x-goog-upload-url')!;
    expect(url.startsWith(`${gw.url}/upload/v1beta/files?upload_id=`)).toBe(true);
    const send = (command: string, offset: number, chunk: string) => fetch(url, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) }, body: chunk });
    const first = await send('upload', 0, body.slice(0, 10));
    expect([first.status, first.headers.get('x-goog-upload-status')]).toEqual([200, 'active']);
    const wrongOffset = await send('upload, finalize', 3, body.slice(10));
    expect([wrongOffset.status, ((await wrongOffset.json()) as { error: { status: string } }).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    const last = await send('upload, finalize', 10, body.slice(10));
    expect([last.status, last.headers.get('x-goog-upload-status')]).toEqual([200, 'final']);
    const { file } = (await last.json()) as { file: { name: string; sizeBytes: string; displayName: string; mimeType: string } };
    expect(file).toMatchObject({ sizeBytes: String(body.length), displayName: 'chunks', mimeType: 'application/jsonl' });
    const content = await fetch(`${gw.url}/download/v1beta/${file.name}:download?alt=media`, { headers: { 'x-goog-api-key': gw.key! } });
    expect(await content.text()).toBe(body);
    // The session is over: another chunk is refused; a bigger file than declared too; another key cannot use the URL.
    expect((await send('upload, finalize', body.length, 'x')).status).toBe(404);
    const small = await fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers: { ...headers, 'x-goog-upload-header-content-length': '4' }, body: '{}' });
    const over = await fetch(small.headers.get('x-goog-upload-url')!, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' }, body: 'too long' });
    expect([over.status, ((await over.json()) as { error: { status: string } }).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    const plain = await fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers: { 'x-goog-api-key': gw.key! }, body: 'x' });
    expect([plain.status, ((await plain.json()) as { error: { status: string } }).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  // Before: any text was kept as the file's type: a line break in it made every download of the file a 500 (the
  // type goes out as its Content-Type), and 10,000 characters went out as one; it also went upstream as the inlined part's type.
  it("an upload's MIME type must be one: else 400 INVALID_ARGUMENT at the start; a type with parameters is kept", async () => {
    const headers = { 'x-goog-api-key': gw.key!, 'content-type': 'application/json', 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '5' };
    const start = (mimeType: string) => fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers, body: JSON.stringify({ file: { displayName: 'note', mimeType } }) });
    for (const bad of ['text/plain\r\nx-other: 1', 'x'.repeat(10_000), 'text plain', 'text/plain;base64,QUJD', 'é/ü']) {
      const refused = await start(bad);
      expect([refused.status, ((await refused.json()) as { error: { status: string; message: string } }).error]).toMatchObject([400, { status: 'INVALID_ARGUMENT', message: expect.stringContaining('mimeType') }]);
    }
    const header = await fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers: { ...headers, 'x-goog-upload-header-content-type': 'not a type' }, body: '{}' });
    expect(header.status).toBe(400);
    const kept = await start('text/plain; charset=utf-8');
    const done = await fetch(kept.headers.get('x-goog-upload-url')!, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' }, body: 'hello' });
    const { file } = (await done.json()) as { file: { name: string; mimeType: string } };
    expect(file.mimeType).toBe('text/plain; charset=utf-8');
    const content = await fetch(`${gw.url}/download/v1beta/${file.name}:download?alt=media`, { headers: { 'x-goog-api-key': gw.key! } });
    expect([content.status, content.headers.get('content-type'), await content.text()]).toEqual([200, 'text/plain; charset=utf-8', 'hello']);
  });

  it("refuses in Google's shape: a file that is not there, no requests, an unknown model, an unknown batch", async () => {
    const file = await ai.batches.create({ model: 'mock/echo', src: 'files/abc' }).catch((error: unknown) => error);
    expect((file as ApiError).status).toBe(404);
    expect(JSON.parse((file as ApiError).message).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const empty = await ai.batches.create({ model: 'mock/echo', src: [] }).catch((error: unknown) => error);
    expect((empty as ApiError).status).toBe(400);
    const unknown = await ai.batches.create({ model: 'nobody/nothing', src: [{ contents: 'hi' }] }).catch((error: unknown) => error);
    expect((unknown as ApiError).status).toBe(404);
    const missing = await ai.batches.get({ name: 'batches/batch_nothing' }).catch((error: unknown) => error);
    expect((missing as ApiError).status).toBe(404);
    const stranger = new GoogleGenAI({ apiKey: 'sk-not-a-key', httpOptions: { baseUrl: gw.url } });
    const refused = await stranger.batches.list().catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(401);
  });
});
