/**
 * The OpenAI Agents SDK for JS (pinned in test/clients) through the gateway on flows beyond one
 * call a turn, with the model served in another format: parallel tool calls in a streamed run
 * (both APIs), an image in the input, and a streamed run whose upstream stream fails part-way (the
 * run must end in an error with the upstream's words, not a finished output). Tracing is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import type { SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const FINAL = 'Done: the file is written.';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);

describe('the OpenAI Agents SDK through the gateway: parallel calls, images, failing streams', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;
  let sdk: any;
  let z: any;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: { vision: true },
      gemini: { models: { 'gemini-3-pro-preview': { thinking: true, gemini3: true } }, provider: 'google' },
      failing: { chat: true, messages: true },
    });
    ({ gateway: gw, chat, responses, messages, gemini } = up as Required<StrictUpstreams>);
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    sdk = await clientModule('@openai/agents');
    z = await clientModule('zod');
    const { default: OpenAI } = await clientModule('openai');
    sdk.setTracingDisabled(true);
    sdk.setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 }));
  }, 900_000);
  afterAll(async () => {
    sdk?.setOpenAIAPI('responses');
    await up?.close();
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
