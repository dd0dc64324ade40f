/**
 * Gemini through the `google` plugin (issue 22 part 4), real CLI against the strict Gemini fake
 * (AI Studio) and the Vertex fake (service-account token in the loop): the `openai` and
 * `@anthropic-ai/sdk` clients converted to Gemini — text, streamed text, parallel function calls
 * over three turns whose thought signatures must come back byte-exact (the fake refuses a
 * missing or altered one, as Gemini 3 does), images in, JSON schema output, thinking budgets,
 * usage with thoughts and cached tokens billed at the catalog's prices, errors in each client's
 * shape — and Gemini clients passing through in both stream framings.
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceAccountKey, startFakeTokenEndpoint, type FakeTokenEndpoint, type ServiceAccountKey } from '../helpers/fake-google-token.ts';
import { embeddingOf, embeddingTokensOf, googleError, startGeminiFake, USAGE, type GeminiFake, type GeminiFakeOptions } from '../helpers/fake-gemini.ts';
import { startVertexFake, type VertexFake } from '../helpers/fake-vertex.ts';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const G3 = 'gemini-3-pro-preview';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const CACHED = 30;
const SCRIPT: Omit<GeminiFakeOptions, 'models'> = {
  // Two rounds of two parallel calls, then the answer: three turns.
  pick: (names) => (names.includes('get_weather') ? [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_weather', args: { city: 'Oslo' } }] : undefined),
  toolTurns: 2,
  finalText: 'Paris is sunny, Oslo is cold.',
  cachedTokens: CACHED,
};
const EMBED = 'gemini-embedding-001';
const MODELS = { [G3]: { thinking: true, gemini3: true }, 'gemini-2.5-pro': { thinking: true, gemini3: false }, [EMBED]: { thinking: false, gemini3: false, embedding: true } };
const WEATHER = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

describe('Gemini through the google plugin (AI Studio and Vertex)', () => {
  let gemini: GeminiFake;
  let tokens: FakeTokenEndpoint;
  let key: ServiceAccountKey;
  let vertex: VertexFake;
  let gw: SpawnedGateway;
  let apiKey: string;

  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey, maxRetries: 0, timeout: 15_000 });
  const usedCredits = () => creditsUsed(gw.url, apiKey);
  const sent = (i: number) => gemini.requests[i].json as Json;

  beforeAll(async () => {
    const dir = tempDir();
    gemini = await startGeminiFake({ models: MODELS, apiKey: 'goog-upstream-key', ...SCRIPT });
    tokens = await startFakeTokenEndpoint(() => ({ publicKey: key.publicKey, clientEmail: key.json.client_email }));
    key = createServiceAccountKey(dir, tokens.tokenUri, 'gw-vertex');
    vertex = await startVertexFake({ tokens, project: 'gw-vertex', location: 'global', gemini: { models: MODELS, ...SCRIPT } });
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [G3, EMBED] },
        vertex: { plugin: 'google', api: 'vertex', credentials: key.file, baseURL: vertex.url, models: ['gemini-2.5-pro', EMBED] },
      },
      routing: { retry: { attempts: 1 } },
    });
    apiKey = await createFundedKey(configFile, dataDir, 'gemini@example.com', 1000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([gemini?.close(), vertex?.close(), tokens?.close()]);
  });
  beforeEach(() => {
    gemini.requests.length = 0;
    vertex.requests.length = 0;
  });

  it('OpenAI SDK: text and streamed text from AI Studio, with the key header and alt=sse', async () => {
    const done = await openai().chat.completions.create({ model: G3, messages: [{ role: 'user', content: 'Hello' }] });
    expect(done.choices[0].message.content).toBe('Paris is sunny, Oslo is cold.');
    const stream = await openai().chat.completions.create({ model: G3, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.requests.map((r) => r.path)).toEqual([`/v1beta/models/${G3}:generateContent`, `/v1beta/models/${G3}:streamGenerateContent?alt=sse`]);
    expect(gemini.requests[0].headers['x-goog-api-key']).toBe('goog-upstream-key');
    expect(gemini.requests[0].headers.authorization).toBeUndefined();
    expect(gemini.rejections).toEqual([]);
  });

  it('OpenAI SDK: parallel function calls over three turns, each round’s signature returned byte-exact; an image in', async () => {
    const client = openai();
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'text', text: 'Weather in Paris and Oslo, twice?' }] }];
    for (let round = 0; round < 2; round += 1) {
      const reply = await client.chat.completions.create({ model: G3, messages, tools });
      const calls = reply.choices[0].message.tool_calls ?? [];
      expect(reply.choices[0].finish_reason).toBe('tool_calls');
      expect(calls.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : undefined))).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
      messages.push(reply.choices[0].message as OpenAI.ChatCompletionMessageParam);
      for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'fine' });
    }
    const last = await client.chat.completions.create({ model: G3, messages, tools });
    expect(last.choices[0].message.content).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.rejections).toEqual([]);
    // The third request carries both rounds, each first call with its own signature as issued.
    const history = sent(2).contents as Json[];
    const signed = history.filter((c) => c.role === 'model').map((c) => c.parts.find((p: Json) => p.functionCall).thoughtSignature);
    expect(signed).toHaveLength(2);
    for (const signature of signed) expect(gemini.issued.has(signature)).toBe(true);
    expect(history[0].parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: PNG } });
  });

  it('Anthropic SDK, streamed: thinking budget, parallel tool use over three turns, signatures byte-exact', async () => {
    const client = anthropic();
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: WEATHER }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Oslo, twice?' }];
    const params = { model: G3, max_tokens: 8192, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools };
    for (let round = 0; round < 2; round += 1) {
      const reply = await client.messages.stream({ ...params, messages }).finalMessage();
      expect(reply.stop_reason).toBe('tool_use');
      const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      expect(uses.map((u) => u.input)).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
      messages.push({ role: 'assistant', content: reply.content });
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: 'fine' })) });
    }
    const last = await client.messages.stream({ ...params, messages }).finalMessage();
    expect(last.content.find((b) => b.type === 'text')).toMatchObject({ text: 'Paris is sunny, Oslo is cold.' });
    expect(gemini.rejections).toEqual([]);
    expect(sent(0).generationConfig.thinkingConfig).toMatchObject({ thinkingBudget: 2048 });
  });

  it("Anthropic SDK, whole answer: Gemini's text in several parts is one text block, as when streamed (content[0].text is all of it)", async () => {
    const reply = await anthropic().messages.create({ model: G3, max_tokens: 1024, messages: [{ role: 'user', content: 'How is the weather?' }] });
    expect(reply.content).toEqual([expect.objectContaining({ type: 'text', text: 'Paris is sunny, Oslo is cold.' })]);
    // The fields the API writes on every answer (the SDK's Message type has them), null here.
    expect(reply).toMatchObject({ stop_reason: 'end_turn', stop_details: null, container: null });
    // The fake answered in two text parts, the second signed (Gemini 3's last part).
    expect(gemini.rejections).toEqual([]);
  });

  it("OpenAI SDK Responses, whole answer: Gemini's text in several parts is one output_text, as OpenAI writes it (output[0].content[0].text is all of it)", async () => {
    const reply = await openai().responses.create({ model: G3, input: 'How is the weather?' });
    expect(reply.output.filter((item) => item.type === 'message').map((item) => item.type === 'message' && item.content)).toEqual([[expect.objectContaining({ type: 'output_text', text: 'Paris is sunny, Oslo is cold.' })]]);
    expect(gemini.rejections).toEqual([]);
  });

  it('OpenAI SDK: JSON schema output and a reasoning effort reach Gemini as responseMimeType, a schema and a thinking config', async () => {
    const reply = await openai().chat.completions.create({
      model: G3,
      messages: [{ role: 'user', content: 'Answer in JSON' }],
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } },
    });
    expect(JSON.parse(reply.choices[0].message.content!)).toEqual({ answer: 'done' });
    const config = sent(0).generationConfig;
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseJsonSchema ?? config.responseSchema).toMatchObject({ properties: { answer: { type: expect.stringMatching(/^string$/i) } } });
    expect(config.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'low' });
  });

  it('usage with thoughts and cached tokens in the client’s fields, billed at the catalog prices of gemini-3-pro-preview', async () => {
    const before = await usedCredits();
    const reply = await openai().chat.completions.create({ model: G3, messages: [{ role: 'user', content: 'Bill me' }] });
    expect(reply.usage).toMatchObject({
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.candidates + USAGE.thoughts,
      prompt_tokens_details: { cached_tokens: CACHED },
      completion_tokens_details: { reasoning_tokens: USAGE.thoughts },
    });
    // (120 − 30) × 2 + 30 × 0.2 + (20 + 8) × 12 = 522 USD per million = 0.522 credits (milli-dollars).
    await expect.poll(async () => (await usedCredits()) - before, { timeout: 5000 }).toBeCloseTo(0.522, 6);
  });

  it("errors in each client's shape: 429 RESOURCE_EXHAUSTED, 400 INVALID_ARGUMENT, 403 PERMISSION_DENIED", async () => {
    gemini.failNext(googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'));
    const limited = await openai().chat.completions.create({ model: G3, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    gemini.failNext(googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'));
    const invalid = await anthropic().messages.create({ model: G3, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect((invalid as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    gemini.failNext(googleError(403, 'PERMISSION_DENIED', 'Permission denied: Consumer has been suspended.'));
    const denied = await anthropic().messages.create({ model: G3, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect((denied as { status?: number }).status).toBe(502);
    expect((denied as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { code: 'provider_error' } });
  });

  it('a Gemini client passes through, in SSE and in the JSON-array framing it asked for', async () => {
    const body = '{"contents":[{"role":"user","parts":[{"text":"Hello"}]}],  "generationConfig":{"temperature":1.0}}';
    const post = (action: string) => fetch(`${gw.url}/v1beta/models/google/${G3}:${action}`, { method: 'POST', headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' }, body });
    const whole = (await (await post('generateContent')).json()) as Json;
    expect(whole.candidates[0].content.parts.map((p: Json) => p.text).join('')).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.requests[0].body).toBe(body);
    const sse = await (await post('streamGenerateContent?alt=sse')).text();
    expect(sse.split('\n').filter((l) => l.startsWith('data: ')).length).toBeGreaterThan(1);
    const array = await post('streamGenerateContent');
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    const records = JSON.parse(await array.text()) as Json[];
    expect(records.map((r) => r.candidates[0].content.parts[0].text).join('')).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.requests.map((r) => r.path)).toEqual([`/v1beta/models/${G3}:generateContent`, `/v1beta/models/${G3}:streamGenerateContent?alt=sse`, `/v1beta/models/${G3}:streamGenerateContent`]);
    expect(gemini.rejections).toEqual([]);
  });

  it('a Gemini passthrough is never stricter than Google: a snake_case part goes to the strict fake byte-exact (not re-written in camelCase), and is billed', async () => {
    // Google's REST docs write parts in snake_case (proto JSON accepts both); a passthrough is not decoded, so its bytes go as written.
    const body = `{"contents":[{"role":"user","parts":[{"text":"What is this?"},{"inline_data":{"mime_type":"image/png","data":"${PNG}"}}]}],"generationConfig":{"maxOutputTokens":200}}`;
    const before = await usedCredits();
    const res = await fetch(`${gw.url}/v1beta/models/google/${G3}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).candidates[0].content.parts.map((p: Json) => p.text).join('')).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.requests.map((r) => r.body)).toEqual([body]);
    expect(gemini.rejections).toEqual([]);
    expect(await usedCredits()).toBeGreaterThan(before);
  });

  it("embeddings of a Google embedding model: OpenAI's /v1/embeddings and the Gemini face's embedContent through AI Studio's batchEmbedContents", async () => {
    // Before: gemini-embedding-001 was taken for a chat model ('gemini-…'), and the plugin had no embeddings at all.
    const listed = await openai().models.retrieve(`google/${EMBED}`);
    expect(listed).toMatchObject({ id: `google/${EMBED}` });
    const answer = await openai().embeddings.create({ model: `google/${EMBED}`, input: ['first text', 'second'], dimensions: 8, encoding_format: 'float' });
    expect(answer.data.map((item) => item.embedding)).toEqual([embeddingOf('first text', 8), embeddingOf('second', 8)]);
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(gemini.requests.at(-1)!.path).toBe(`/v1beta/models/${EMBED}:batchEmbedContents`);
    expect(gemini.requests.at(-1)!.headers['x-goog-api-key']).toBe('goog-upstream-key');
    expect(sent(0)).toEqual({ requests: [
      { model: `models/${EMBED}`, content: { parts: [{ text: 'first text' }] }, outputDimensionality: 8 },
      { model: `models/${EMBED}`, content: { parts: [{ text: 'second' }] }, outputDimensionality: 8 },
    ] });
    // The OpenAI SDK asks for base64 by default (little-endian float32) and decodes it: the same values as float32.
    const encoded = await openai().embeddings.create({ model: `google/${EMBED}`, input: 'first text', dimensions: 8 });
    expect(encoded.data[0].embedding).toEqual(embeddingOf('first text', 8).map(Math.fround));
    const genai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const face = await genai.models.embedContent({ model: `google/${EMBED}`, contents: ['first text'], config: { outputDimensionality: 8 } });
    expect(face.embeddings?.[0]?.values).toEqual(embeddingOf('first text', 8));
    expect(gemini.rejections).toEqual([]);
  });

  it("embeddings on Vertex AI: one :predict per input (gemini-embedding-001 takes one instance), Google's token counts as usage and bill", async () => {
    const before = await usedCredits();
    const texts = ['first text', 'the second text', 'third'];
    const answer = await openai().embeddings.create({ model: `vertex/${EMBED}`, input: texts, dimensions: 4, encoding_format: 'float' });
    expect(answer.data.map((item) => item.embedding)).toEqual(texts.map((text) => embeddingOf(text, 4)));
    const tokens = texts.reduce((sum, text) => sum + embeddingTokensOf(text), 0);
    expect(answer.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(vertex.requests.map((r) => r.path)).toEqual(texts.map(() => `/v1/projects/gw-vertex/locations/global/publishers/google/models/${EMBED}:predict`));
    expect(vertex.requests.map((r) => r.json).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      texts.map((content) => ({ instances: [{ content }], parameters: { outputDimensionality: 4 } })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    expect(vertex.rejections).toEqual([]);
    // Google's count billed at the catalog's input price for gemini-embedding-001: $0.15 per million tokens (credits are milli-dollars).
    await expect.poll(async () => (await usedCredits()) - before, { timeout: 5000 }).toBeCloseTo((tokens * 0.15) / 1000, 8);
  });

  it("reasoning off or an effort the model lacks asks Gemini for what the model takes: 2.5 Pro's least budget (128), Gemini 3 Pro's low or high", async () => {
    // Before: thinkingBudget 0 to gemini-2.5-pro ("This model only works in thinking mode") and thinkingLevel minimal/medium to gemini-3-pro: Google's 400.
    const chat = (model: string, effort: string) => openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }], reasoning_effort: effort } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect((await chat('gemini-2.5-pro', 'none')).choices[0].message.content).toBe('Paris is sunny, Oslo is cold.');
    expect((vertex.requests.at(-1)!.json as Json).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 128 });
    const off = await anthropic().messages.create({ model: 'gemini-2.5-pro', max_tokens: 1024, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'Hello' }] });
    expect(off.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toBe('Paris is sunny, Oslo is cold.');
    expect((vertex.requests.at(-1)!.json as Json).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 128 });
    for (const [effort, level] of [['minimal', 'low'], ['medium', 'high'], ['none', 'low']] as const) {
      await chat(G3, effort);
      expect((gemini.requests.at(-1)!.json as Json).generationConfig.thinkingConfig.thinkingLevel, effort).toBe(level);
    }
    expect(gemini.rejections).toEqual([]);
    expect(vertex.rejections).toEqual([]);
  });

  it('Vertex Gemini on the global host path, with a bearer token from the token endpoint (minted once)', async () => {
    const done = await openai().chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hello' }] });
    expect(done.choices[0].message.content).toBe('Paris is sunny, Oslo is cold.');
    const stream = anthropic().messages.stream({ model: 'gemini-2.5-pro', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });
    expect(await stream.finalText()).toBe('Paris is sunny, Oslo is cold.');
    const base = '/v1/projects/gw-vertex/locations/global/publishers/google/models/gemini-2.5-pro';
    expect(vertex.requests.map((r) => r.path)).toEqual([`${base}:generateContent`, `${base}:streamGenerateContent?alt=sse`]);
    expect(vertex.requests[0].headers.authorization).toBe(`Bearer ${tokens.issued[0]}`);
    expect(tokens.issued).toHaveLength(1);
    expect(vertex.unauthenticated).toBe(0);
    expect(vertex.rejections).toEqual([]);
  });
});
