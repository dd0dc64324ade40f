import { afterEach, describe, expect, it } from 'vitest';
import googlePlugin from '../../../plugins/google/index.ts';
import { readBody, type ChatCall, type ProviderInstance } from '../../../src/plugin-kit/index.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory } from '../../../src/upstream/index.ts';
import { countTokensOf, startGeminiFake, type GeminiFake } from '../../helpers/fake-gemini.ts';
import { createServiceAccountKey, startFakeTokenEndpoint } from '../../helpers/fake-google-token.ts';
import { startVertexFake } from '../../helpers/fake-vertex.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

const log = { info: () => undefined, warn: () => undefined };
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function setUp(baseURL: string, options: Record<string, unknown>, apiKey?: string): Promise<ProviderInstance> {
  const http = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
  const instance = await googlePlugin.setup({ id: 'g', baseURL, apiKey, headers: {}, timeouts: DEFAULT_TIMEOUTS, options: googlePlugin.options!.parse(options), http, log });
  opened.push({ close: async () => (await instance.close?.(), await http.closeAll()) });
  return instance;
}

function call(body: Record<string, unknown>, extra: Partial<ChatCall> = {}): ChatCall {
  return { format: 'gemini', body, rawBody: JSON.stringify(body), model: 'gemini-2.5-flash', stream: false, headers: {}, signal: new AbortController().signal, ...extra };
}

const CONTENTS = [{ role: 'user', parts: [{ text: 'Count me' }] }];

describe('google plugin catalog', () => {
  it('prices Google Search grounding as Google bills it: per grounded answer on Gemini 2.x (one search held at most), per query on Gemini 3', () => {
    const describeModel = googlePlugin.catalog!.describe!;
    expect(describeModel('gemini-2.5-flash')?.pricing).toEqual({ webSearch: 0.035, webSearchesPerAnswer: 1 });
    expect(describeModel('gemini-3-flash-preview')?.pricing).toEqual({ webSearch: 0.014 });
  });
});

describe('google plugin against the Gemini and Vertex fakes', () => {
  let gemini: GeminiFake;

  it("AI Studio counts a generateContent body as {generateContentRequest} with Google's counter", async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, apiKey: 'k' });
    opened.push(gemini);
    const instance = await setUp(gemini.url, {}, 'k');
    const response = await instance.countTokens!(call({ contents: CONTENTS, systemInstruction: { parts: [{ text: 'Be brief' }] } }));
    expect(JSON.parse((await readBody(response.body)).toString())).toMatchObject({ totalTokens: countTokensOf(CONTENTS) });
    expect(gemini.requests[0].path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(gemini.requests[0].json).toEqual({ generateContentRequest: { contents: CONTENTS, systemInstruction: { parts: [{ text: 'Be brief' }] }, model: 'models/gemini-2.5-flash' } });
    expect(gemini.rejections).toEqual([]);
  });

  it('AI Studio sends a countTokens body wrapped as generate_content_request as it is (it was wrapped again: a 400, counted locally)', async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'k' });
    opened.push(gemini);
    const instance = await setUp(gemini.url, {}, 'k');
    // As the Gemini count face's upstreamBody leaves it: the client's spelling, the model named inside.
    const body = { generate_content_request: { contents: CONTENTS, model: 'models/gemini-2.5-flash' } };
    const response = await instance.countTokens!(call(body));
    expect(response.status).toBe(200);
    expect(gemini.requests[0].json).toEqual(body);
    expect(gemini.rejections).toEqual([]);
  });

  it('asks for the JSON-array framing when the call says so (no alt=sse)', async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'k' });
    opened.push(gemini);
    const instance = await setUp(gemini.url, {}, 'k');
    const response = await instance.chat!(call({ contents: CONTENTS }, { stream: true, framing: 'json-array' }));
    expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
    const records = JSON.parse((await readBody(response.body)).toString()) as unknown[];
    expect(records.length).toBeGreaterThan(1);
    expect(gemini.requests[0].path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  });

  it('Vertex counts with the request members at the top level, a bearer token from the service account', async () => {
    const dir = tempDir();
    let publicKey!: import('node:crypto').KeyObject;
    const tokens = await startFakeTokenEndpoint(() => ({ publicKey, clientEmail: 'gateway@p1.iam.gserviceaccount.com' }));
    const key = createServiceAccountKey(dir, tokens.tokenUri, 'p1');
    publicKey = key.publicKey;
    const vertex = await startVertexFake({ tokens, project: 'p1', location: 'europe-west4', gemini: { models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } } } });
    opened.push(tokens, vertex);
    const instance = await setUp(vertex.url, { api: 'vertex', location: 'europe-west4', credentials: key.json });
    const response = await instance.countTokens!(call({ contents: CONTENTS, generationConfig: { temperature: 0 }, safetySettings: [] }));
    expect(response.status).toBe(200);
    expect(vertex.requests[0].path).toBe('/v1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:countTokens');
    expect(vertex.requests[0].json).toEqual({ contents: CONTENTS, generationConfig: { temperature: 0 } });
    // A snake_case body (Google's REST spelling), wrapped or not: its members by the names it wrote (they were dropped: none counted, or a 400).
    const snake = { contents: CONTENTS, system_instruction: { parts: [{ text: 'Be brief' }] }, generation_config: { temperature: 0 } };
    expect((await instance.countTokens!(call(snake))).status).toBe(200);
    expect((await instance.countTokens!(call({ generate_content_request: { ...snake, model: 'models/gemini-2.5-flash' } }))).status).toBe(200);
    expect(vertex.requests.slice(1).map((r) => r.json)).toEqual([snake, snake]);
    expect(vertex.rejections).toEqual([]);
    expect(instance.models?.map((m) => m.id)).toContain('claude-sonnet-4-5@20250929');
  });

  it('AI Studio refuses a Claude call with a message naming api: vertex', async () => {
    const instance = await setUp('http://127.0.0.1:9', {}, 'k');
    expect(() => instance.chat!(call({}, { format: 'messages', model: 'claude-x' }))).toThrow(/needs api: 'vertex'/);
  });
});
