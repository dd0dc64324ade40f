/**
 * The OpenAI Agents SDK for JS (pinned in test/clients) through the gateway on flows beyond one
 * call a turn, with the model served in another format: parallel tool calls in a streamed run
 * (both APIs), an image in the input, and a streamed run whose upstream stream fails part-way (the
 * run must end in an error with the upstream's words, not a finished output). Tracing is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { chatSse, namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const FINAL = 'Done: the file is written.';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
const UPSTREAM_ERROR = 'The server had an error while processing your request.';
const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);

describe('the OpenAI Agents SDK through the gateway: parallel calls, images, failing streams', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let failingChat: FakeUpstream;
  let failingMessages: FakeUpstream;
  let gw: SpawnedGateway;
  let sdk: any;
  let z: any;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick });
    gemini = await startGeminiFake({ apiKey: 'goog', models: { 'gemini-3-pro-preview': { thinking: true, gemini3: true } }, pick: (names) => pick(names)?.map((call) => ({ name: call.name, args: call.input })), finalText: FINAL });
    const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flaky', choices: [{ index: 0, delta, finish_reason: null }] });
    failingChat = await startFakeUpstream(() => ({ sse: [...chatSse([chunk({ role: 'assistant', content: 'Partial ' })], false), `data: {"error":{"message":"${UPSTREAM_ERROR}","type":"server_error","code":null}}\n\n`] }));
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
          google: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-3-pro-preview'] },
          fc: { plugin: 'openai', baseURL: `${failingChat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['flaky'] },
          fm: { plugin: 'anthropic', baseURL: failingMessages.url, apiKey: 'x', models: ['flaky'] },
        },
      },
    });
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    sdk = await clientModule('@openai/agents');
    z = await clientModule('zod');
    const { default: OpenAI } = await clientModule('openai');
    sdk.setTracingDisabled(true);
    sdk.setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 }));
  }, 900_000);
  afterAll(async () => {
    sdk?.setOpenAIAPI('responses');
    await gw?.stop();
    for (const fake of [chat, responses, messages, gemini, failingChat, failingMessages]) await fake?.close();
  });

  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
  const lookup = () => sdk.tool({ name: 'lookup', description: 'Weather of a city', parameters: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` });
  const agentOn = (model: string, tools = [lookup()]) => new sdk.Agent({ name: 'Weather agent', instructions: 'Answer weather questions with the lookup tool.', model, modelSettings: { reasoning: { effort: 'low' } }, tools });

  describe.each(['responses', 'chat_completions'])('%s API', (api) => {
    beforeAll(() => sdk.setOpenAIAPI(api));

    it.each(['oc/o4-mini', 'or/gpt-5', 'ant/claude-up', 'google/gemini-3-pro-preview'])('a streamed run with two parallel calls on %s', async (model) => {
      const result = await sdk.run(agentOn(model), 'Weather in Paris and London?', { stream: true });
      let text = '';
      for await (const chunk of result.toTextStream()) text += chunk;
      await result.completed;
      expect(result.error ?? null).toBeNull();
      expect(rejections()).toEqual([]);
      expect(text).toBe(FINAL);
      expect(result.newItems.filter((item: any) => item.type === 'tool_call_output_item').map((item: any) => item.output)).toEqual(['18°C in Paris', '18°C in London']);
    });

    it.each(['oc/o4-mini', 'ant/claude-up', 'google/gemini-3-pro-preview'])('an image in the input reaches %s', async (model) => {
      for (const fake of [chat, messages, gemini]) fake.requests.length = 0;
      const input = [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image: `data:image/png;base64,${PNG_BASE64}` }] }];
      const result = await sdk.run(agentOn(model, []), input);
      expect(rejections()).toEqual([]);
      expect(result.finalOutput).toBe(FINAL);
      expect([...chat.requests, ...messages.requests, ...gemini.requests].some((r) => r.body.includes(PNG_BASE64))).toBe(true);
    });

    it.each(['fc/flaky', 'fm/flaky'])('a streamed run on %s whose stream fails part-way ends in the upstream\'s error', async (model) => {
      const outcome = await (async () => {
        const result = await sdk.run(agentOn(model, []), 'Say hi.', { stream: true });
        for await (const _event of result);
        await result.completed;
        return result.error;
      })().catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(Error);
      expect(String((outcome as Error).message)).toContain(UPSTREAM_ERROR);
    });
  });
});
