/**
 * `@google/genai` in Vertex AI mode (`vertexai: true`, `httpOptions.baseUrl` at the gateway), as
 * a Vertex user points it: the SDK asks Vertex's paths
 * (`/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`, without the
 * project on Vertex express) and the gateway serves them as the Gemini format, the model from the
 * path (a provider's models as publisher `provider`), JSON, streamed and counted, passed through to
 * the Gemini fake or converted to the Chat fake. The key as `x-goog-api-key` (what the SDK sends
 * with an API key) or `Authorization: Bearer` (what Vertex's OAuth clients send).
 */
import { ApiError, GoogleGenAI } from '@google/genai';
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
  const vertex = (options: { project?: string; location?: string } = { project: 'my-project', location: 'us-central1' }) =>
    new GoogleGenAI({ vertexai: true, apiKey: gw.key, ...options, httpOptions: { baseUrl: gw.url, timeout: 20_000, fetch: recording } });

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key', finalText: 'Hello from Gemini.' });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o': { maxOutput: 16384, reasoning: false } }, finalText: 'Hello from Chat.' });
    gw = await spawnGateway({
      config: {
        providers: {
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o'] },
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
    const raw = await fetch(`${gw.url}/v1beta1/projects/p/locations/us-east5/publishers/google/models/gemini-2.5-flash:predict`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body });
    expect(raw.status).toBe(404);
    expect(((await raw.json()) as Json).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const error = await vertex().models.generateContent({ model: 'nobody/nothing', contents: 'Hi' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  });
});
