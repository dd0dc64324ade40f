/**
 * The AI SDK (pinned in test/clients: ai 6, @ai-sdk/openai 3, @ai-sdk/anthropic 3,
 * @ai-sdk/openai-compatible 2; and AI SDK 7 beside it: ai 7, @ai-sdk/openai 4, @ai-sdk/anthropic 4,
 * @ai-sdk/openai-compatible 3, under aliased names) through the gateway (issue 24): `openai(id)`
 * (Responses, default `store`), `openai.chat`, `createAnthropic` and `createOpenAICompatible` run
 * generateText and streamText with a tool over three steps on a reasoning model, and a structured
 * object (generateObject; AI SDK 7 has only generateText's `output`) — each through a passthrough
 * route and a converted one, against strict fakes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Provider = 'responses' | 'chat' | 'anthropic' | 'compatible';

const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);

/** The packages of each AI SDK major in test/clients. */
const MAJORS = [
  { major: 6, ai: 'ai', openai: '@ai-sdk/openai', anthropic: '@ai-sdk/anthropic', compatible: '@ai-sdk/openai-compatible' },
  { major: 7, ai: 'ai-v7', openai: 'ai-sdk-v7-openai', anthropic: 'ai-sdk-v7-anthropic', compatible: 'ai-sdk-v7-openai-compatible' },
] as const;

describe.each(MAJORS)('the AI SDK $major through the gateway', (sdk) => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  /** Gemini 3: every call round signed, the signatures checked when they come back. */
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let ai: any;
  let z: any;
  let models: Record<Provider, (id: string) => unknown>;

  beforeAll(async () => {
    await ensureTestClients();
    const options = { pick, toolTurns: 2 };
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, ...options });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, ...options });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, ...options });
    gemini = await startGeminiFake({ apiKey: 'goog', models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, pick: (names) => { const call = pick(names); return call && [{ name: call.name, args: call.input }]; }, toolTurns: 2, finalText: 'Done: the file is written.' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          gg: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-3-flash-preview'] },
        },
      },
    });
    ai = await clientModule(sdk.ai);
    z = await clientModule('zod');
    const { createOpenAI } = await clientModule(sdk.openai);
    const { createAnthropic } = await clientModule(sdk.anthropic);
    const { createOpenAICompatible } = await clientModule(sdk.compatible);
    const settings = { baseURL: `${gw.url}/v1`, apiKey: gw.key };
    const openai = createOpenAI(settings);
    const anthropic = createAnthropic(settings);
    const compatible = createOpenAICompatible({ name: 'gateway', ...settings });
    models = { responses: (id) => openai(id), chat: (id) => openai.chat(id), anthropic: (id) => anthropic(id), compatible: (id) => compatible(id) };
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, gemini]) await fake?.close();
  });

  const PROVIDER_OPTIONS = {
    // forceReasoning: the gateway's ids (provider/model) are not ones the SDK knows as reasoning models.
    openai: { reasoningEffort: 'low', reasoningSummary: 'auto', forceReasoning: true },
    anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } },
    gateway: { reasoningEffort: 'low' },
  };

  function tools() {
    return { lookup: ai.tool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` }) };
  }

  const ROUTES: Array<[Provider, string, string]> = [
    ['responses', 'or/gpt-5', 'passthrough'],
    ['responses', 'ant/claude-up', 'conversion'],
    ['chat', 'oc/o4-mini', 'passthrough'],
    ['chat', 'ant/claude-up', 'conversion'],
    ['anthropic', 'ant/claude-up', 'passthrough'],
    ['anthropic', 'or/gpt-5', 'conversion'],
    ['compatible', 'oc/o4-mini', 'passthrough'],
    ['compatible', 'ant/claude-up', 'conversion'],
    ['responses', 'gg/gemini-3-flash-preview', 'conversion'],
    ['chat', 'gg/gemini-3-flash-preview', 'conversion'],
    ['anthropic', 'gg/gemini-3-flash-preview', 'conversion'],
    ['compatible', 'gg/gemini-3-flash-preview', 'conversion'],
  ];

  /**
   * The SDK (default `store`) sent step 1's reasoning as an item_reference: the gateway stored that
   * response, so it resolved the reference and Anthropic got the signed thinking block back.
   */
  function expectReasoningReplayed(): void {
    const turns = messages.requests.map((r) => (r.json as { messages: Array<{ role: string; content: unknown }> }).messages);
    const later = turns.filter((list) => list.some((m) => m.role === 'assistant'));
    expect(later.length).toBeGreaterThan(0);
    for (const list of later) {
      const assistant = list.filter((m) => m.role === 'assistant');
      for (const m of assistant) expect(JSON.stringify(m.content)).toMatch(/"type":"thinking".*"signature":"/);
    }
  }

  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
  beforeEach(() => {
    for (const fake of [chat, responses, messages, gemini]) {
      fake.rejections.length = 0;
      fake.requests.length = 0;
    }
  });

  describe.each(ROUTES)('%s provider → %s (%s)', (provider, model) => {
    it('generateText: a tool over three steps', async () => {
      const result = await ai.generateText({ model: models[provider](model), prompt: 'Weather in Paris, twice?', tools: tools(), stopWhen: ai.stepCountIs(5), providerOptions: PROVIDER_OPTIONS, maxRetries: 0 });
      expect(rejections()).toEqual([]);
      expect(result.steps).toHaveLength(3);
      expect(result.text).toBe('Done: the file is written.');
      if (provider === 'responses' && model === 'or/gpt-5') {
        // With the default `store`, step 2 refers to step 1's reasoning by reference: it reached the upstream unresolved.
        const inputs = responses.requests.map((r) => JSON.stringify((r.json as { input?: unknown }).input));
        expect(inputs.some((input) => input.includes('"item_reference"')), inputs.join('\n')).toBe(true);
      }
      if (provider === 'responses' && model === 'ant/claude-up') expectReasoningReplayed();
    });

    it('streamText: a tool over three steps', async () => {
      const result = ai.streamText({ model: models[provider](model), prompt: 'Weather in Paris, twice?', tools: tools(), stopWhen: ai.stepCountIs(5), providerOptions: PROVIDER_OPTIONS, maxRetries: 0, onError: () => {} });
      const text = await result.text;
      expect(rejections()).toEqual([]);
      expect(await result.steps).toHaveLength(3);
      expect(text).toBe('Done: the file is written.');
      if (provider === 'responses' && model === 'ant/claude-up') expectReasoningReplayed();
    });

    it('a structured object (generateObject; generateText with output on AI SDK 7)', async () => {
      const schema = z.object({ answer: z.string() });
      const object =
        sdk.major === 6
          ? (await ai.generateObject({ model: models[provider](model), prompt: 'Answer in JSON.', schema, maxRetries: 0 })).object
          : (await ai.generateText({ model: models[provider](model), prompt: 'Answer in JSON.', output: ai.Output.object({ schema }), maxRetries: 0 })).output;
      expect(rejections()).toEqual([]);
      expect(object).toEqual({ answer: 'done' });
    });
  });
});
