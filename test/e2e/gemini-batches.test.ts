import { ApiError, GoogleGenAI, JobState, type BatchJob } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
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

  it("refuses in Google's shape: a file source, no requests, an unknown model, an unknown batch", async () => {
    const file = await ai.batches.create({ model: 'mock/echo', src: 'files/abc' }).catch((error: unknown) => error);
    expect((file as ApiError).status).toBe(400);
    expect(JSON.parse((file as ApiError).message).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
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
