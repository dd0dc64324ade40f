/**
 * @google/genai 3 (pinned in test/clients) asks Google's stable version by default: every call
 * under `/v1`, where `/v1/files` and `/v1/batches` are OpenAI's routes too. Its Files API and
 * Batch API answer it there in Google's shape, while the OpenAI SDK on the same gateway gets
 * OpenAI's routes as before; what the gateway does not serve (cachedContents) is Google's 404,
 * and a base URL with /v1beta once too often says the base URL to use. Before, files.get and
 * batches.get were OpenAI's 401 ("No API key provided"), files.upload a 404 and batches.cancel
 * a 405.
 */
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';
import { until } from '../helpers/until.ts';

describe('@google/genai 3 (API version v1 by default) through the gateway', () => {
  let gw: SpawnedGateway;
  let genai: any;
  let ai: any;
  let openai: OpenAI;

  beforeAll(async () => {
    await ensureTestClients();
    genai = await clientModule('@google/genai');
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, batches: { concurrency: 1 } } });
    ai = new genai.GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const status = async (call: () => Promise<unknown>) => ((await call().catch((error: unknown) => error)) as { status?: number }).status;
  const googleError = async (call: () => Promise<unknown>) => {
    const error = await call().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(genai.ApiError);
    return { status: (error as { status: number }).status, error: JSON.parse((error as Error).message).error as Record<string, unknown> };
  };
  const ended = (name: string) =>
    until(`batch ${name} to end`, async () => {
      const job = await ai.batches.get({ name });
      return ['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'].includes(job.state) ? job : undefined;
    });

  it('is the SDK that asks /v1 (the pin this test is about)', async () => {
    const seen: string[] = [];
    const probe = new genai.GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url } });
    const original = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname);
      return original(input, init);
    }) as typeof fetch;
    try {
      expect((await probe.models.generateContent({ model: 'mock/echo', contents: 'hi' })).text).toBe('hi');
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toEqual(['/v1/models/mock/echo:generateContent']);
  });

  it('files: upload, get, list, download and delete under /v1, in Google\'s shape', async () => {
    const text = 'a text file for Gemini\n';
    const uploaded = await ai.files.upload({ file: new Blob([text]), config: { mimeType: 'text/plain', displayName: 'notes.txt' } });
    expect(uploaded).toMatchObject({ displayName: 'notes.txt', mimeType: 'text/plain', sizeBytes: String(Buffer.byteLength(text)), state: 'ACTIVE' });
    expect(uploaded.name).toMatch(/^files\/[a-z0-9]+$/);
    expect(await ai.files.get({ name: uploaded.name })).toMatchObject({ name: uploaded.name, displayName: 'notes.txt' });
    const listed: string[] = [];
    for await (const file of await ai.files.list()) listed.push(file.name);
    expect(listed).toContain(uploaded.name);
    const target = path.join(tempDir('gw-genai3-'), 'notes.txt');
    await ai.files.download({ file: uploaded.name, downloadPath: target });
    await until('the download to be written', async () => (fs.existsSync(target) && fs.readFileSync(target, 'utf8') === text ? true : undefined));
    // The same file is the account's: the OpenAI SDK sees it on its own /v1/files.
    expect((await openai.files.retrieve(uploaded.name.slice('files/'.length))).bytes).toBe(Buffer.byteLength(text));
    await ai.files.delete({ name: uploaded.name });
    expect(await googleError(() => ai.files.get({ name: uploaded.name }))).toMatchObject({ status: 404, error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('batches: create from inline requests and from an uploaded file, get until done, list, cancel and delete under /v1', async () => {
    const inline = await ai.batches.create({ model: 'mock/echo', src: [{ contents: [{ role: 'user', parts: [{ text: 'hello one' }] }] }, { contents: [{ role: 'user', parts: [{ text: 'hello two' }] }] }] });
    const done = await ended(inline.name);
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    expect(done.dest.inlinedResponses.map((r: any) => r.response.candidates[0].content.parts[0].text)).toEqual(['hello one', 'hello two']);

    const jsonl = `${JSON.stringify({ key: 'a', request: { contents: [{ parts: [{ text: 'from a file' }] }] } })}\n`;
    const file = await ai.files.upload({ file: new Blob([jsonl]), config: { mimeType: 'jsonl' } });
    const fromFile = await ended((await ai.batches.create({ model: 'mock/echo', src: file.name })).name);
    expect(fromFile.state).toBe('JOB_STATE_SUCCEEDED');
    const target = path.join(tempDir('gw-genai3-'), 'results.jsonl');
    await ai.files.download({ file: fromFile.dest.fileName, downloadPath: target });
    await until('the results to be written', async () => (fs.existsSync(target) && fs.readFileSync(target, 'utf8').length > 0 ? true : undefined));
    expect(JSON.parse(fs.readFileSync(target, 'utf8').trim())).toMatchObject({ key: 'a', response: { candidates: [{ content: { parts: [{ text: 'from a file' }] } }] } });

    const names: string[] = [];
    for await (const job of await ai.batches.list({ config: { pageSize: 1 } })) names.push(job.name);
    expect(names).toEqual(expect.arrayContaining([inline.name, fromFile.name]));
    // Cancel on an ended batch changes nothing, as Google's; delete removes it from the list.
    await ai.batches.cancel({ name: inline.name });
    expect((await ai.batches.get({ name: inline.name })).state).toBe('JOB_STATE_SUCCEEDED');
    await ai.batches.delete({ name: inline.name });
    const left: string[] = [];
    for await (const job of await ai.batches.list()) left.push(job.name);
    expect(left).not.toContain(inline.name);
    expect(await googleError(() => ai.batches.get({ name: 'batches/nothing' }))).toMatchObject({ status: 404, error: { status: 'NOT_FOUND' } });
  }, 60_000);

  it("OpenAI's SDK keeps OpenAI's /v1/files and /v1/batches, and a POST on a batch is its 405 as before", async () => {
    const created = await openai.files.create({ file: new File(['{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"mock/echo","messages":[{"role":"user","content":"hi"}]}}\n'], 'in.jsonl'), purpose: 'batch' });
    expect(created).toMatchObject({ object: 'file', purpose: 'batch' });
    const ids: string[] = [];
    for await (const file of openai.files.list()) ids.push(file.id);
    expect(ids).toContain(created.id);
    const batch = await openai.batches.create({ input_file_id: created.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await openai.batches.retrieve(batch.id)).object).toBe('batch');
    const page = await openai.batches.list();
    expect(page.data.map((b) => b.object)).toContain('batch');
    const post = await fetch(`${gw.url}/v1/batches/${batch.id}`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` } });
    expect(post.status).toBe(405);
    expect(((await post.json()) as { error: { type: string } }).error.type).toBeDefined();
    expect(await status(() => openai.files.retrieve('file-nothing'))).toBe(404);
  });

  it("Google's key in the query (`?key=`, Google's REST examples) is Google's face on /v1/files too", async () => {
    const answer = await fetch(`${gw.url}/v1/files?key=${gw.key}`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toHaveProperty('files');
    expect(body).not.toHaveProperty('data');
    const missing = await fetch(`${gw.url}/v1/files/nothing?key=${gw.key}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  // Before: /v1/models answered Google's SDKs by their headers only, so Google's REST form (`?key=`, no header) was
  // OpenAI's 401 "No API key provided" on the list and a model, and an unknown model OpenAI's 404.
  it("Google's key in the query is Google's face on /v1/models too: the list, a model, and errors in Google's shape", async () => {
    const list = await fetch(`${gw.url}/v1/models?key=${gw.key}`);
    expect(list.status).toBe(200);
    expect((await list.json()) as Record<string, unknown>).toHaveProperty('models');
    const one = await fetch(`${gw.url}/v1/models/mock/echo?key=${gw.key}`);
    expect([one.status, ((await one.json()) as { name: string }).name]).toEqual([200, 'models/mock/echo']);
    const unknown = await fetch(`${gw.url}/v1/models/mock/nothing?key=${gw.key}`);
    expect([unknown.status, ((await unknown.json()) as { error: { status: string } }).error.status]).toEqual([404, 'NOT_FOUND']);
    const wrongKey = await fetch(`${gw.url}/v1/models?key=sk-gw-not-a-key`);
    expect([wrongKey.status, ((await wrongKey.json()) as { error: { status: string } }).error.status]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it("cachedContents (not served) is Google's 404 under /v1 too", async () => {
    expect(await googleError(() => ai.caches.list())).toMatchObject({ status: 404, error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('a base URL with /v1beta once too often (host/v1beta + /v1/…) says the base URL to use', async () => {
    const doubled = new genai.GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: `${gw.url}/v1beta`, timeout: 15_000 } });
    const { status: code, error } = await googleError(() => doubled.models.generateContent({ model: 'mock/echo', contents: 'hi' }));
    expect(code).toBe(404);
    expect(error.message).toBe(
      `No route for POST /v1beta/v1/models/mock/echo:generateContent. Did you mean /v1/models/mock/echo:generateContent? The base URL has /v1beta once too often: the Google SDKs add their API version themselves (/v1beta, or /v1 from @google/genai 3) and take the base URL ${gw.url} (@ai-sdk/google takes ${gw.url}/v1beta).`,
    );
  });
});
