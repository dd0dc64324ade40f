/**
 * `@google/genai` in Vertex AI mode (`vertexai: true`, `httpOptions.baseUrl` at the gateway), as
 * a Vertex user points it: the SDK asks Vertex's paths
 * (`/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`, without the
 * project on Vertex express) and the gateway serves them as the Gemini format, the model from the
 * path (a provider's models as publisher `provider`), JSON, streamed and counted, passed through to
 * the Gemini fake or converted to the Chat fake. The key as `x-goog-api-key` (what the SDK sends
 * with an API key) or `Authorization: Bearer` (what Vertex's OAuth clients send). models.get and
 * models.list answer Vertex's publisher models; embedContent (`:predict`) and generateImages
 * (Imagen's `:predict`) run on the mock provider's embedding and image models.
 */
import { ApiError, GoogleGenAI, RawReferenceImage } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('@google/genai in Vertex AI mode against the gateway', () => {
  let gemini: GeminiFake;
  let chat: StrictFake;
  let gw: SpawnedGateway;
  /** The URLs and credential headers the SDK sent. */
  const sent: Array<{ url: string; apiKey: string | null; authorization: string | null }> = [];
  const recording: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({ url: String(input instanceof Request ? input.url : input), apiKey: headers.get('x-goog-api-key'), authorization: headers.get('authorization') });
    return fetch(input, init);
  };
  const vertex = (options: { project?: string; location?: string } = { project: 'my-project', location: 'us-central1' }, apiVersion?: string) =>
    new GoogleGenAI({ vertexai: true, apiKey: gw.key, ...options, httpOptions: { baseUrl: gw.url, timeout: 20_000, fetch: recording, ...(apiVersion === undefined ? {} : { apiVersion }) } });

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key', finalText: 'Hello from Gemini.' });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o': { maxOutput: 16384, reasoning: false } }, finalText: 'Hello from Chat.' });
    gw = await spawnGateway({
      config: {
        providers: {
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o'] },
          mock: { plugin: 'mock' }, // its offline embedding and image models, mock/embed and mock/image
        },
        routing: { retry: { attempts: 1 } },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
    await chat?.close();
  });
  beforeEach(() => {
    sent.length = 0;
    gemini.requests.length = 0;
    chat.requests.length = 0;
  });

  it("generateContent with a project and location: Vertex's path, the key as x-goog-api-key; passed through to Gemini as the SDK wrote it", async () => {
    const answer = await vertex().models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hi', config: { temperature: 0.3, maxOutputTokens: 100 } });
    expect(answer.text).toBe('Hello from Gemini.');
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`);
    expect(sent[0].apiKey).toBe(gw.key);
    expect(gemini.rejections).toEqual([]);
    expect(gemini.requests.map((r) => r.path)).toEqual(['/v1beta/models/gemini-2.5-flash:generateContent']);
    expect(gemini.requests[0].json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }], generationConfig: { temperature: 0.3, maxOutputTokens: 100 } });
  });

  it('streamed (alt=sse), and on Vertex express (an API key, no project): publishers/{provider}/models/{id} names a gateway model, converted to Chat', async () => {
    let text = '';
    for await (const chunk of await vertex().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Stream please' })) text += chunk.text ?? '';
    expect(text).toBe('Hello from Gemini.');
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
    expect(gemini.requests[0].path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');

    const express = vertex({});
    const converted = await express.models.generateContent({ model: 'oc/gpt-4o', contents: 'Hi Chat' });
    expect(converted.text).toBe('Hello from Chat.');
    let streamed = '';
    for await (const chunk of await express.models.generateContentStream({ model: 'oc/gpt-4o', contents: 'Hi again' })) streamed += chunk.text ?? '';
    expect(streamed).toBe('Hello from Chat.');
    expect(sent.slice(1).map((s) => s.url)).toEqual([`${gw.url}/v1beta1/publishers/oc/models/gpt-4o:generateContent`, `${gw.url}/v1beta1/publishers/oc/models/gpt-4o:streamGenerateContent?alt=sse`]);
    expect(chat.rejections).toEqual([]);
    expect((chat.requests[0].json as Json).model).toBe('gpt-4o');
  });

  it("apiVersion '' with the base URL at the gateway's root: Vertex's paths with no version (/projects/…, /publishers/… on express), every call", async () => {
    const root = vertex({ project: 'my-project', location: 'us-central1' }, '');
    expect((await root.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hi' })).text).toBe('Hello from Gemini.');
    let text = '';
    for await (const chunk of await root.models.generateContentStream({ model: 'oc/gpt-4o', contents: 'Stream please' })) text += chunk.text ?? '';
    expect(text).toBe('Hello from Chat.');
    expect((await root.models.countTokens({ model: 'gemini-2.5-flash', contents: 'Count these words' })).totalTokens).toBeGreaterThan(0);
    expect((await root.models.get({ model: 'oc/gpt-4o' })).name).toBe('publishers/google/models/oc/gpt-4o');
    const listed: string[] = [];
    for await (const model of await root.models.list()) listed.push(model.name!);
    expect(listed).toEqual(expect.arrayContaining(['publishers/google/models/google/gemini-2.5-flash', 'publishers/google/models/oc/gpt-4o']));
    const embedded = await root.models.embedContent({ model: 'mock/embed', contents: 'first text', config: { outputDimensionality: 8 } });
    expect(embedded.embeddings?.[0].values).toHaveLength(8);
    const express = vertex({}, '');
    expect((await express.models.generateContent({ model: 'oc/gpt-4o', contents: 'Hi Chat' })).text).toBe('Hello from Chat.');
    const project = `${gw.url}/projects/my-project/locations/us-central1/publishers`;
    expect(sent.map((s) => s.url)).toEqual([
      `${project}/google/models/gemini-2.5-flash:generateContent`,
      `${project}/oc/models/gpt-4o:streamGenerateContent?alt=sse`,
      `${project}/google/models/gemini-2.5-flash:countTokens`,
      `${project}/oc/models/gpt-4o`,
      `${gw.url}/publishers/google/models`,
      `${project}/mock/models/embed:predict`,
      `${gw.url}/publishers/oc/models/gpt-4o:generateContent`,
    ]);
    expect(gemini.requests.map((r) => r.path)).toEqual(['/v1beta/models/gemini-2.5-flash:generateContent', '/v1beta/models/gemini-2.5-flash:countTokens']);
  });

  it("countTokens on Vertex's path: Gemini's counter, Google's answer", async () => {
    const counted = await vertex().models.countTokens({ model: 'gemini-2.5-flash', contents: 'Count these words please' });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens`);
    expect(gemini.requests.map((r) => r.path)).toEqual(['/v1beta/models/gemini-2.5-flash:countTokens']);
  });

  it("the key as Authorization: Bearer (Vertex's OAuth form) on v1 and v1beta1; none is Google's 401; a method the gateway does not serve is Google's 404", async () => {
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    for (const version of ['v1', 'v1beta1']) {
      const res = await fetch(`${gw.url}/${version}/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(((await res.json()) as Json).candidates[0].content.parts.map((p: Json) => p.text).join('')).toBe('Hello from Gemini.');
    }
    const anonymous = await fetch(`${gw.url}/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as Json).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    // (`publishers/anthropic/models/{m}:rawPredict` is Claude's Vertex face, the Messages format's: test/e2e/cloud-faces.test.ts.)
    const raw = await fetch(`${gw.url}/v1beta1/projects/p/locations/us-east5/publishers/google/models/gemini-2.5-flash:rawPredict`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body });
    expect(raw.status).toBe(404);
    expect(((await raw.json()) as Json).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const error = await vertex().models.generateContent({ model: 'nobody/nothing', contents: 'Hi' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  });

  // Before: "No route for POST /v1/v1beta1/projects/…", nothing about the base URL (AI Studio mode got the hint; Vertex's
  // paths are broad routes, which the hint did not look at).
  it('a base URL with a version once too often (host/v1, host/v1beta1): a 404 in Google\'s shape that says the base URL to use', async () => {
    for (const [suffix, words] of [['/v1', `take the base URL ${gw.url};`], ['/v1beta1', `adds /v1beta1 itself and takes the base URL ${gw.url}.`]] as const) {
      const doubled = new GoogleGenAI({ vertexai: true, apiKey: gw.key, project: 'p', location: 'us-central1', httpOptions: { baseUrl: `${gw.url}${suffix}`, timeout: 20_000 } });
      for (const call of [() => doubled.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' }), () => doubled.models.countTokens({ model: 'gemini-2.5-flash', contents: 'Hi' })]) {
        const error = await call().then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect([suffix, (error as ApiError).status]).toEqual([suffix, 404]);
        const body = JSON.parse((error as ApiError).message);
        expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
        expect(body.error.message).toContain(words);
      }
    }
    expect(gemini.requests).toEqual([]);
  });

  // AI Studio mode takes `models/gemini-2.5-flash`; Vertex mode sends it under the project (a tuned model's path). Before: a bare "No route".
  it("a model named models/… (a tuned model's path in Vertex mode): Google's 404 naming the id to use, with and without a project", async () => {
    for (const options of [{ project: 'my-project', location: 'us-central1' }, {}]) {
      const error = await vertex(options).models.generateContent({ model: 'models/gemini-2.5-flash', contents: 'Hi' }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      const body = JSON.parse((error as ApiError).message);
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toContain("name it without models/ ('gemini-2.5-flash'), which it sends as publishers/google/models/gemini-2.5-flash.");
    }
    expect(gemini.requests).toEqual([]);
  });

  it("models.get and models.list: Vertex's publisher models (GET …/publishers/google/models[/{id}]), each named so the SDK can call it again", async () => {
    const ai = vertex();
    const one = await ai.models.get({ model: 'gemini-2.5-flash' });
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/publishers/google/models/gemini-2.5-flash`);
    expect(sent[0].apiKey).toBe(gw.key);
    expect(one).toMatchObject({ name: 'publishers/google/models/google/gemini-2.5-flash', version: '001', displayName: expect.any(String) });
    // Another provider's model is publisher `oc` to the SDK, under the project.
    const other = await ai.models.get({ model: 'oc/gpt-4o' });
    expect(sent[1].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/oc/models/gpt-4o`);
    expect(other.name).toBe('publishers/google/models/oc/gpt-4o');
    expect((await ai.models.generateContent({ model: other.name!, contents: 'Hi' })).text).toBe('Hello from Chat.');
    const missing = await ai.models.get({ model: 'nobody/nothing' }).then(() => undefined, (e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).status).toBe(404);

    sent.length = 0;
    const names: string[] = [];
    for await (const model of await ai.models.list({ config: { pageSize: 2 } })) names.push(model.name!);
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/publishers/google/models?pageSize=2`);
    expect(sent.length).toBeGreaterThan(1); // paged by nextPageToken
    expect(names).toEqual(expect.arrayContaining(['publishers/google/models/google/gemini-2.5-flash', 'publishers/google/models/oc/gpt-4o', 'publishers/google/models/mock/embed']));
    expect(new Set(names).size).toBe(names.length);
    // Tuned models (queryBase: false) are listed under the project: the gateway has none.
    const tuned: string[] = [];
    for await (const model of await ai.models.list({ config: { queryBase: false } })) tuned.push(model.name!);
    expect(tuned).toEqual([]);
    expect(sent.at(-1)!.url).toMatch(new RegExp(`^${gw.url}/v1beta1/projects/my-project/locations/us-central1/models\\?`));
  });

  it("embedContent: Vertex's :predict (instances → predictions with statistics.token_count), the vectors /v1/embeddings gives", async () => {
    const answer = await vertex().models.embedContent({ model: 'mock/embed', contents: ['first text', 'a second, longer text'], config: { outputDimensionality: 8, taskType: 'RETRIEVAL_DOCUMENT' } });
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/mock/models/embed:predict`);
    const openai = (await (await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock/embed', input: ['first text', 'a second, longer text'], dimensions: 8 }) })).json()) as Json;
    expect(answer.embeddings?.map((e) => e.values)).toEqual(openai.data.map((d: Json) => d.embedding));
    const counts = answer.embeddings!.map((e) => e.statistics?.tokenCount ?? 0);
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(openai.usage.prompt_tokens);
    // Gemini's newer embedding models take Vertex's :embedContent (outputDimensionality in embedContentConfig); :predict of a chat model is Google's 400.
    const post = (path: string, body: unknown) => fetch(`${gw.url}/v1beta1/projects/p/locations/global/publishers/${path}`, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const one = (await (await post('mock/models/embed:embedContent', { content: { parts: [{ text: 'first text' }] }, embedContentConfig: { outputDimensionality: 8 } })).json()) as Json;
    expect(one).toEqual({ embedding: { values: openai.data[0].embedding }, usageMetadata: { promptTokenCount: counts[0] } });
    const chatModel = await post('google/models/gemini-2.5-flash:predict', { instances: [{ content: 'x' }] });
    expect(chatModel.status).toBe(400);
    expect(((await chatModel.json()) as Json).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it("generateImages: Imagen's :predict (instances[{prompt}], parameters.sampleCount) → predictions[{bytesBase64Encoded, mimeType}]", async () => {
    const answer = await vertex().models.generateImages({ model: 'mock/image', prompt: 'A red cube', config: { numberOfImages: 2, aspectRatio: '1:1' } });
    expect(sent[0].url).toBe(`${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/mock/models/image:predict`);
    expect(answer.generatedImages).toHaveLength(2);
    for (const generated of answer.generatedImages!) {
      expect(generated.image?.mimeType).toBe('image/png');
      expect(Buffer.from(generated.image!.imageBytes!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    }
    // editImage asks the same :predict with the image in the instance: refused (400 naming it), never drawn from the prompt alone.
    const raw = Object.assign(new RawReferenceImage(), { referenceId: 1, referenceImage: { imageBytes: answer.generatedImages![0].image!.imageBytes, mimeType: 'image/png' } });
    const edit = await vertex().models.editImage({ model: 'mock/image', prompt: 'Make it blue', referenceImages: [raw] }).then(() => undefined, (e: unknown) => e);
    expect(edit).toBeInstanceOf(ApiError);
    expect((edit as ApiError).status).toBe(400);
    expect((edit as ApiError).message).toContain('instances[0].referenceImages');
    // upscaleImage sends the image and no prompt: refused naming the image, not a missing prompt.
    const upscale = await vertex().models.upscaleImage({ model: 'mock/image', image: { imageBytes: answer.generatedImages![0].image!.imageBytes, mimeType: 'image/png' }, upscaleFactor: 'x2' }).then(() => undefined, (e: unknown) => e);
    expect(upscale).toBeInstanceOf(ApiError);
    expect((upscale as ApiError).status).toBe(400);
    expect((upscale as ApiError).message).toContain('instances[0].image');
  });
});
