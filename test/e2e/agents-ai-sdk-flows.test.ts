/**
 * The AI SDK (6 and 7, pinned in test/clients) through the gateway on flows beyond one tool call,
 * with the model served in another format: parallel tool calls over a multi-step loop with
 * reasoning carried across steps (signed thinking, encrypted reasoning, Gemini's signatures),
 * an image in the prompt, and a streamed answer whose upstream stream fails part-way (the SDK
 * must raise the upstream's words, not end as a finished answer). Strict fakes throughout.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import type { SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Provider = 'responses' | 'chat' | 'anthropic';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
/** Two lookups at once, each step (two steps of tools, then the answer). */
const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);

const MAJORS = [
  { major: 6, ai: 'ai', openai: '@ai-sdk/openai', anthropic: '@ai-sdk/anthropic' },
  { major: 7, ai: 'ai-v7', openai: 'ai-sdk-v7-openai', anthropic: 'ai-sdk-v7-anthropic' },
] as const;

describe.each(MAJORS)('the AI SDK $major through the gateway: parallel calls, images, failing streams', (sdk) => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;
  let ai: any;
  let z: any;
  let models: Record<Provider, (id: string) => unknown>;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      // The strict fakes count tool results (two a round), the Gemini fake rounds.
      pick,
      toolTurns: 4,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: { vision: true },
      gemini: { models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, toolTurns: 2 },
      failing: { chat: true, responses: true, messages: true },
    });
    ({ gateway: gw, chat, responses, messages, gemini } = up as Required<StrictUpstreams>);
    ai = await clientModule(sdk.ai);
    z = await clientModule('zod');
    const { createOpenAI } = await clientModule(sdk.openai);
    const { createAnthropic } = await clientModule(sdk.anthropic);
    const settings = { baseURL: `${gw.url}/v1`, apiKey: gw.key };
    const openai = createOpenAI(settings);
    const anthropic = createAnthropic(settings);
    models = { responses: (id) => openai(id), chat: (id) => openai.chat(id), anthropic: (id) => anthropic(id) };
  }, 900_000);
  afterAll(() => up?.close());

  const PROVIDER_OPTIONS = {
    openai: { reasoningEffort: 'low', reasoningSummary: 'auto', forceReasoning: true },
    anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } },
  };
  const tools = () => ({ lookup: ai.tool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` }) });
  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
  beforeEach(() => {
    for (const fake of [chat, responses, messages, gemini]) {
      fake.rejections.length = 0;
      fake.requests.length = 0;
    }
  });

  const CONVERTED: Array<[Provider, string]> = [
    ['responses', 'ant/claude-up'],
    ['responses', 'oc/o4-mini'],
    ['responses', 'gg/gemini-3-flash-preview'],
    ['anthropic', 'or/gpt-5'],
    ['anthropic', 'oc/o4-mini'],
    ['anthropic', 'gg/gemini-3-flash-preview'],
    ['chat', 'ant/claude-up'],
    ['chat', 'or/gpt-5'],
  ];

  describe.each(CONVERTED)('%s provider → %s', (provider, model) => {
    it('streamText: two parallel calls a step over three steps, reasoning carried', async () => {
      const result = ai.streamText({ model: models[provider](model), prompt: 'Weather in Paris and London, twice?', tools: tools(), stopWhen: ai.stepCountIs(5), providerOptions: PROVIDER_OPTIONS, maxRetries: 0, onError: () => {} });
      const text = await result.text;
      expect(rejections()).toEqual([]);
      const steps = await result.steps;
      expect(steps).toHaveLength(3);
      expect(steps[0].toolCalls.map((call: any) => call.input.city)).toEqual(['Paris', 'London']);
      expect(steps[1].toolResults.map((r: any) => r.output)).toEqual(['18°C in Paris', '18°C in London']);
      expect(text).toBe('Done: the file is written.');
    });

    it('generateText: an image in the prompt reaches the model', async () => {
      const result = await ai.generateText({
        model: models[provider](model),
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', image: PNG_BASE64, mediaType: 'image/png' }] }],
        maxRetries: 0,
      });
      expect(rejections()).toEqual([]);
      expect(result.text).toBe('Done: the file is written.');
      const sent = [...chat.requests, ...responses.requests, ...messages.requests, ...gemini.requests].map((r) => r.body);
      expect(sent.some((body) => body.includes(PNG_BASE64))).toBe(true);
    });
  });

  it.each([
    ['responses', 'fc/flaky'],
    ['responses', 'fm/flaky'],
    ['anthropic', 'fr/flaky'],
    ['anthropic', 'fc/flaky'],
    ['chat', 'fm/flaky'],
    ['chat', 'fr/flaky'],
  ] as Array<[Provider, string]>)('streamText with the %s provider on %s whose stream fails part-way: an error with the upstream\'s words', async (provider, model) => {
    const errors: unknown[] = [];
    const result = ai.streamText({ model: models[provider](model), prompt: 'Say hi.', maxRetries: 0, onError: ({ error }: { error: unknown }) => errors.push(error) });
    const parts: any[] = [];
    for await (const part of result.fullStream) parts.push(part);
    const error = parts.find((part) => part.type === 'error')?.error;
    expect(error, JSON.stringify(parts)).toBeDefined();
    expect(String((error as any)?.message ?? JSON.stringify(error))).toContain(UPSTREAM_ERROR);
    // Not a finished answer: no stop finish reason.
    expect(parts.find((part) => part.type === 'finish')?.finishReason).not.toBe('stop');
  });
});
