/**
 * A gateway id in Google's path without `models/`: the AI SDK's Google provider (@ai-sdk/google) and
 * LangChain's Google model (@langchain/google-genai, through @google/generative-ai) put a model id
 * holding a slash in the path as it is, so `google('oc/o4-mini')` asks
 * `POST /v1beta/oc/o4-mini:generateContent`. It was a 404 for every call of both clients (found
 * driving them, ai 6.0.325 + @ai-sdk/google 3.0.141, @langchain/google-genai 2.3.2). Other
 * methods and unserved paths under /v1beta stay 404 in Google's shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

describe("Google's path without models/ (the AI SDK's and LangChain's Google models)", () => {
  let chat: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, finalText: 'done' });
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, finalText: 'done' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini'] },
          google: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await chat?.close();
    await gemini?.close();
  });

  const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];

  it.each(['oc/o4-mini', 'google/gemini-2.5-flash'])('%s: generateContent, streamGenerateContent (SSE) and countTokens', async (model) => {
    const whole = await post(`/v1beta/${model}:generateContent`, { contents });
    expect(whole.status, await whole.clone().text()).toBe(200);
    const answer = (await whole.json()) as { candidates: Array<{ content: { parts: Array<{ text?: string; thought?: boolean }> } }>; usageMetadata: { promptTokenCount: number } };
    expect(answer.candidates[0]!.content.parts.filter((part) => !part.thought).map((part) => part.text).join('')).toMatch(/done/);
    expect(answer.usageMetadata.promptTokenCount).toBeGreaterThan(0);

    const streamed = await post(`/v1beta/${model}:streamGenerateContent?alt=sse`, { contents });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await streamed.text()).toMatch(/^data: \{"candidates"/m);

    const counted = await post(`/v1beta/${model}:countTokens`, { contents });
    expect(counted.status).toBe(200);
    expect(((await counted.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect([...chat.rejections]).toEqual([]);
  });

  it("an unserved path or another method there is still Google's 404", async () => {
    for (const [method, path] of [['GET', '/v1beta/files/abc'], ['POST', '/v1beta/oc/o4-mini:predictLongRunning']] as const) {
      const response = await fetch(`${gw.url}${path}`, { method, headers: { 'x-goog-api-key': gw.key! } });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(((await response.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    }
    // A file's download is a GET (the Files API is served): a POST there is Google's wrong method.
    const post = await fetch(`${gw.url}/v1beta/files/abc:download`, { method: 'POST', headers: { 'x-goog-api-key': gw.key! } });
    expect([post.status, ((await post.json()) as { error: { status: string } }).error.status]).toEqual([405, 'UNIMPLEMENTED']);
  });
});
