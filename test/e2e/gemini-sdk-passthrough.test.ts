/**
 * The unmodified `@google/genai` SDK through the gateway to a Gemini upstream (the `google`
 * plugin and the strict Gemini fake): a passthrough, so the fake gets the SDK's own bytes and
 * the SDK the fake's — generateContent, generateContentStream, countTokens (Google's counter),
 * models.list, and a chat with parallel function calls over three turns whose thought
 * signatures the SDK sends back byte-exact (the fake refuses a missing or altered one).
 */
import { ApiError, GoogleGenAI, type Content, type Part } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countTokensOf, startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const MODEL = 'google/gemini-3-pro-preview';
const UPSTREAM = '/v1beta/models/gemini-3-pro-preview';
const LOOKUP = { name: 'lookup', description: 'Weather of a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('@google/genai through the gateway to Gemini (passthrough)', () => {
  let gemini: GeminiFake;
  let claude: StrictFake;
  let gw: SpawnedGateway;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    gemini = await startGeminiFake({
      models: { 'gemini-3-pro-preview': { thinking: true, gemini3: true } },
      apiKey: 'goog-upstream-key',
      pick: (names) => (names.includes('lookup') ? [{ name: 'lookup', args: { city: 'Paris' } }, { name: 'lookup', args: { city: 'Oslo' } }] : undefined),
      toolTurns: 2,
      finalText: 'Paris is sunny, Oslo is cold.',
      cachedTokens: 30,
    });
    claude = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick: (names) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined) });
    gw = await spawnGateway({
      config: {
        providers: {
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-3-pro-preview'] },
          ant: { plugin: 'anthropic', baseURL: claude.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
    await claude?.close();
  });
  beforeEach(() => {
    gemini.requests.length = 0;
  });

  it('generateContent and generateContentStream: the SDK’s bytes upstream, usage with thoughts and cache', async () => {
    const response = await ai.models.generateContent({ model: MODEL, contents: 'Say hi', config: { systemInstruction: 'Be brief.', thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } });
    expect(response.text).toBe('Paris is sunny, Oslo is cold.');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 120, thoughtsTokenCount: 8, cachedContentTokenCount: 30 });
    expect(gemini.requests[0].path).toBe(`${UPSTREAM}:generateContent`);
    expect(gemini.requests[0].headers['x-goog-api-key']).toBe('goog-upstream-key');
    expect(gemini.requests[0].json).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } });
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'Say hi' })) text += chunk.text ?? '';
    expect(text).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.requests[1].path).toBe(`${UPSTREAM}:streamGenerateContent?alt=sse`);
    expect(gemini.rejections).toEqual([]);
  });

  it("Google's 429 names its wait in a RetryInfo (no Retry-After header): the client gets that wait, not 1 s", async () => {
    const HELP = { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] };
    const quota = { code: 429, message: 'You exceeded your current quota. Please retry in 7.2s.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7.2s' }, HELP] };
    gemini.failNext({ status: 429, json: { error: quota } });
    const error = await ai.models.generateContent({ model: MODEL, contents: 'Say hi' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    const body = JSON.parse((error as ApiError).message);
    // error.retry_after is whole seconds (spec §7, rounded up); the RetryInfo keeps Google's own wait to the millisecond (44e68f5).
    expect(body.error.retry_after).toBe(8);
    expect(body.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7.2s' });
    // Google's other details reach the client as it sent them (before: only the gateway's ErrorInfo and RetryInfo).
    expect(body.error.details).toContainEqual(HELP);
  });

  it("countTokens goes to Google's counter; models.list lists the gateway's Gemini models", async () => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Count me, please' }] }];
    const counted = await ai.models.countTokens({ model: MODEL, contents });
    expect(gemini.requests.at(-1)!.path).toBe(`${UPSTREAM}:countTokens`);
    expect(counted.totalTokens).toBe(countTokensOf(contents));
    // Google's whole answer, not only its total (the REST answer: the SDK keeps totalTokens and cachedContentTokenCount).
    const rest = await fetch(`${gw.url}/v1beta/models/${MODEL}:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.key! },
      body: JSON.stringify({ generateContentRequest: { model: `models/${MODEL}`, contents, cachedContent: 'cachedContents/abc' } }),
    });
    expect(await rest.json()).toEqual({
      totalTokens: countTokensOf(contents) + 30,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: countTokensOf(contents) + 30 }],
      cachedContentTokenCount: 30,
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 30 }],
    });
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    expect(names).toContain(`models/${MODEL}`);
  });

  it('a chat with parallel function calls over three turns: signatures sent back byte-exact', async () => {
    const chat = ai.chats.create({ model: MODEL, config: { tools: [{ functionDeclarations: [LOOKUP] }] } });
    let reply = await chat.sendMessage({ message: 'Weather in Paris and Oslo, twice?' });
    for (let round = 0; round < 2; round += 1) {
      const calls = reply.functionCalls ?? [];
      expect(calls.map((c) => c.args)).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
      reply = await chat.sendMessage({ message: calls.map((c) => ({ functionResponse: { name: c.name!, response: { result: `${String(c.args?.city)}: fine` } } })) });
    }
    expect(reply.text).toBe('Paris is sunny, Oslo is cold.');
    expect(gemini.rejections).toEqual([]);
    const history = (gemini.requests.at(-1)!.json as { contents: Array<{ role: string; parts: Array<{ functionCall?: unknown; thoughtSignature?: string }> }> }).contents;
    const signatures = history.filter((c) => c.role === 'model').map((c) => c.parts.find((p) => p.functionCall)?.thoughtSignature);
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(gemini.issued.has(signature!)).toBe(true);
  });

  it("a tool loop begun on another model goes on on Gemini 3: the converted call carries Google's skip value, so Google takes the history as written", async () => {
    const config = { tools: [{ functionDeclarations: [LOOKUP] }] };
    const answered = await ai.models.generateContent({ model: 'ant/claude-up', contents: 'Weather in Paris?', config });
    let streamed: Part[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'ant/claude-up', contents: 'Weather in Paris?', config })) streamed = [...streamed, ...(chunk.candidates?.[0]?.content?.parts ?? [])];
    for (const parts of [answered.candidates![0].content!.parts!, streamed.filter((part) => part.functionCall)]) {
      expect(parts).toEqual([{ functionCall: { id: expect.any(String), name: 'lookup', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }]);
    }
    const call = answered.functionCalls![0];
    const history: Content[] = [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      answered.candidates![0].content!,
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { result: 'sunny' } } }] },
    ];
    // Before: the unsigned call went to Gemini 3 as the client sent it, and Google refused the turn (400 "Function call is missing a thought_signature").
    const next = await ai.models.generateContent({ model: MODEL, contents: history, config });
    expect(gemini.rejections).toEqual([]);
    expect(next.functionCalls?.length ?? next.text?.length).toBeGreaterThan(0);
    const sent = (gemini.requests.at(-1)!.json as { contents: Array<{ parts: Array<Record<string, unknown>> }> }).contents;
    expect(sent[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    // The same history back on Claude: the skip value stays out of Anthropic's request.
    await ai.models.generateContent({ model: 'ant/claude-up', contents: history, config });
    expect(claude.rejections).toEqual([]);
    expect(JSON.stringify(claude.requests.at(-1)!.json)).not.toContain('skip_thought_signature_validator');
  });

  it("a history from Claude goes on to Gemini 3: Claude's thinking (carried as a gwpm: thoughtSignature) stays out, its call gets Google's skip value", async () => {
    const config = { tools: [{ functionDeclarations: [LOOKUP] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } };
    const first = await ai.models.generateContent({ model: 'ant/claude-up', contents: 'Weather in Paris?', config });
    const turn = first.candidates![0].content!;
    expect(turn.parts!.some((part) => part.thought && part.thoughtSignature?.startsWith('gwpm:'))).toBe(true);
    const call = first.functionCalls![0];
    const history: Content[] = [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      turn,
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { result: 'sunny' } } }] },
    ];
    // Before: the gwpm: value went to Google, which cannot decode it (400 INVALID_ARGUMENT, "Corrupted thought signature").
    const next = await ai.models.generateContent({ model: MODEL, contents: history, config });
    expect(gemini.rejections).toEqual([]);
    expect(next.functionCalls?.length ?? next.text?.length).toBeGreaterThan(0);
    const sent = (gemini.requests.at(-1)!.json as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    expect(JSON.stringify(sent)).not.toContain('gwpm:');
    expect(sent[1].parts).toEqual([{ functionCall: { id: call.id, name: 'lookup', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }]);
    // Back on Claude, the same history still carries its signed thinking (the client's bytes were not changed).
    await ai.models.generateContent({ model: 'ant/claude-up', contents: history, config });
    expect(claude.rejections).toEqual([]);
  });
});
