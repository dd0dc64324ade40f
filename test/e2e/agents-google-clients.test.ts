/**
 * Google-format clients other than @google/genai and gemini-cli, pinned in test/clients: the AI SDK's
 * Google provider (@ai-sdk/google 3 on ai 6) and LangChain's Google chat model
 * (@langchain/google-genai 2), each with its base URL at the gateway's Gemini face, against the
 * strict Chat, Responses, Messages and Gemini fakes: text, streaming, a tool over three steps,
 * structured output, thinking and usage. Both put a gateway id (`oc/o4-mini`) in the path without
 * `models/` (see gemini-bare-model-path).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const FINAL = 'Done: the file is written.';
const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);

describe("the AI SDK's and LangChain's Google models through the gateway", () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let ai: any;
  let z: any;
  let google: ((id: string) => unknown) & { image: (id: string) => unknown };
  let ChatGoogleGenerativeAI: any;

  beforeAll(async () => {
    await ensureTestClients();
    const options = { pick, toolTurns: 2 };
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, ...options });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, ...options });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, ...options });
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, pick: (names) => { const call = pick(names); return call && [{ name: call.name, args: call.input }]; }, toolTurns: 2, finalText: FINAL });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          google: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          mock: { plugin: 'mock' }, // its offline image model, mock/image
        },
      },
    });
    ai = await clientModule('ai');
    z = await clientModule('zod');
    const { createGoogleGenerativeAI } = await clientModule('@ai-sdk/google');
    google = createGoogleGenerativeAI({ baseURL: `${gw.url}/v1beta`, apiKey: gw.key });
    ({ ChatGoogleGenerativeAI } = await clientModule('@langchain/google-genai'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, gemini]) await fake?.close();
  });

  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections];
  beforeEach(() => {
    for (const fake of [chat, responses, messages]) {
      fake.rejections.length = 0;
      fake.requests.length = 0;
    }
  });
  const tools = () => ({ lookup: ai.tool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` }) });
  const THINKING = { google: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } };

  describe.each(['oc/o4-mini', 'or/gpt-5', 'ant/claude-up', 'google/gemini-2.5-flash'])('%s', (model) => {
    // The Chat fake sends no reasoning text (Chat has none); the others do.
    const thinks = model !== 'oc/o4-mini';

    it('AI SDK generateText: a tool over three steps, thinking and usage', async () => {
      const result = await ai.generateText({ model: google(model), prompt: 'Weather in Paris, twice?', tools: tools(), stopWhen: ai.stepCountIs(5), providerOptions: THINKING, maxRetries: 0 });
      expect(rejections()).toEqual([]);
      expect(result.steps).toHaveLength(3);
      expect(result.text).toBe(FINAL);
      expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
      expect(result.totalUsage.outputTokens).toBeGreaterThan(0);
      if (thinks) expect(result.steps[0].reasoningText).toBeTruthy();
    });

    it('AI SDK streamText: a tool over three steps', async () => {
      const result = ai.streamText({ model: google(model), prompt: 'Weather in Paris, twice?', tools: tools(), stopWhen: ai.stepCountIs(5), providerOptions: THINKING, maxRetries: 0, onError: () => {} });
      expect(await result.text).toBe(FINAL);
      expect(rejections()).toEqual([]);
      expect(await result.steps).toHaveLength(3);
      expect((await result.totalUsage).inputTokens).toBeGreaterThan(0);
      if (model === 'ant/claude-up') {
        // Claude's signed thinking came back (the SDK keeps a streamed thought's signature only on a part with text), so thinking stayed on.
        const later = messages.requests.map((r) => r.json as { thinking?: unknown; messages: Array<{ role: string; content: unknown }> }).filter((body) => body.messages.some((m) => m.role === 'assistant'));
        expect(later.length).toBeGreaterThan(0);
        for (const body of later) {
          expect(body.thinking).toBeDefined();
          for (const m of body.messages.filter((m) => m.role === 'assistant')) expect(JSON.stringify(m.content)).toMatch(/^\[\{"type":"thinking","thinking":"[^"]+","signature":"sig_/);
        }
      }
    });

    it('AI SDK generateObject', async () => {
      const result = await ai.generateObject({ model: google(model), prompt: 'Answer in JSON.', schema: z.object({ answer: z.string() }), maxRetries: 0 });
      expect(rejections()).toEqual([]);
      expect(result.object).toEqual({ answer: 'done' });
    });

    it('LangChain: invoke with usage, stream, a tool call, structured output', async () => {
      const llm = new ChatGoogleGenerativeAI({ model, apiKey: gw.key, baseUrl: gw.url, maxRetries: 0 });
      const answer = await llm.invoke('Say hi');
      const text = typeof answer.content === 'string' ? answer.content : answer.content.map((part: { text?: string }) => part.text ?? '').join('');
      expect(text).toBe(FINAL);
      expect(answer.usage_metadata.input_tokens).toBeGreaterThan(0);
      let streamed = '';
      for await (const chunk of await llm.stream('Say hi')) streamed += typeof chunk.content === 'string' ? chunk.content : '';
      expect(streamed).toBe(FINAL);
      const called = await llm.bindTools([{ name: 'lookup', description: 'Weather of a city', schema: z.object({ city: z.string() }) }]).invoke('Weather in Paris?');
      expect(called.tool_calls).toMatchObject([{ name: 'lookup', args: { city: 'Paris' } }]);
      expect(await llm.withStructuredOutput(z.object({ answer: z.string() })).invoke('Answer in JSON.')).toEqual({ answer: 'done' });
      expect(rejections()).toEqual([]);
    });
  });

  it("AI SDK generateImage with an Imagen model: AI Studio's :predict (instances[{prompt}], parameters.sampleCount) answered by the gateway's image model", async () => {
    const result = await ai.generateImage({ model: google.image('mock/image'), prompt: 'A red cube', n: 1, maxRetries: 0 });
    expect(result.images).toHaveLength(1);
    expect(result.images[0].mediaType).toBe('image/png');
    expect(Buffer.from(result.images[0].uint8Array).subarray(1, 4).toString()).toBe('PNG');
  });
});
