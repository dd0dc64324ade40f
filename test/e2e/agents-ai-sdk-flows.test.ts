/**
 * The AI SDK (6 and 7, pinned in test/clients) through the gateway on flows beyond one tool call,
 * with the model served in another format: parallel tool calls over a multi-step loop with
 * reasoning carried across steps (signed thinking, encrypted reasoning, Gemini's signatures),
 * an image in the prompt, and a streamed answer whose upstream stream fails part-way (the SDK
 * must raise the upstream's words, not end as a finished answer). Strict fakes throughout.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { chatSse, namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Provider = 'responses' | 'chat' | 'anthropic';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
const UPSTREAM_ERROR = 'The server had an error while processing your request.';
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
  let failingChat: FakeUpstream;
  let failingResponses: FakeUpstream;
  let failingMessages: FakeUpstream;
  let gw: SpawnedGateway;
  let ai: any;
  let z: any;
  let models: Record<Provider, (id: string) => unknown>;

  beforeAll(async () => {
    await ensureTestClients();
    // The strict fakes count tool results (two a round), the Gemini fake rounds.
    const options = { pick, toolTurns: 4 };
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, ...options });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, ...options });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, ...options });
    gemini = await startGeminiFake({ apiKey: 'goog', models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, pick: (names) => pick(names)?.map((call) => ({ name: call.name, args: call.input })), toolTurns: 2, finalText: 'Done: the file is written.' });
    const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flaky', choices: [{ index: 0, delta, finish_reason: null }] });
    failingChat = await startFakeUpstream(() => ({ sse: [...chatSse([chunk({ role: 'assistant', content: 'Partial ' })], false), `data: {"error":{"message":"${UPSTREAM_ERROR}","type":"server_error","code":null}}\n\n`] }));
    const response = { id: 'resp_f', object: 'response', created_at: 1, status: 'in_progress', model: 'flaky', output: [] };
    failingResponses = await startFakeUpstream(() => ({
      sse: namedSse([
        { type: 'response.created', sequence_number: 0, response },
        { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
        { type: 'response.content_part.added', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
        { type: 'response.output_text.delta', sequence_number: 3, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Partial ' },
        { type: 'response.failed', sequence_number: 4, response: { ...response, status: 'failed', error: { code: 'server_error', message: UPSTREAM_ERROR } } },
      ]),
    }));
    failingMessages = await startFakeUpstream(() => ({
      sse: namedSse([
        { type: 'message_start', message: { id: 'msg_f', type: 'message', role: 'assistant', model: 'flaky', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial ' } },
        { type: 'error', error: { type: 'api_error', message: UPSTREAM_ERROR } },
      ]),
    }));
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking', 'vision'] }] },
          gg: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-3-flash-preview'] },
          fc: { plugin: 'openai', baseURL: `${failingChat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['flaky'] },
          fr: { plugin: 'openai', baseURL: `${failingResponses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['flaky'] },
          fm: { plugin: 'anthropic', baseURL: failingMessages.url, apiKey: 'x', models: ['flaky'] },
        },
      },
    });
    ai = await clientModule(sdk.ai);
    z = await clientModule('zod');
    const { createOpenAI } = await clientModule(sdk.openai);
    const { createAnthropic } = await clientModule(sdk.anthropic);
    const settings = { baseURL: `${gw.url}/v1`, apiKey: gw.key };
    const openai = createOpenAI(settings);
    const anthropic = createAnthropic(settings);
    models = { responses: (id) => openai(id), chat: (id) => openai.chat(id), anthropic: (id) => anthropic(id) };
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, gemini, failingChat, failingResponses, failingMessages]) await fake?.close();
  });

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
