/**
 * The OpenAI Agents SDK for JS (`@openai/agents`, pinned in test/clients) pointed at the gateway
 * the way its docs say (`setDefaultOpenAIClient` with the gateway's base URL), once on its default
 * Responses model and once after `setOpenAIAPI('chat_completions')`, against the strict Chat,
 * Responses, Messages and Gemini fakes: an agent with a function tool over three turns, a handoff
 * to a second agent, a streamed run, a zod `outputType`, and a second turn (`previousResponseId`
 * on Responses, the run's history on Chat). Tracing is off (it would export to OpenAI).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFourUpstreams, type FourUpstreams } from '../helpers/four-upstreams.ts';
import type { ToolPick } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const FINAL = 'Done: the file is written.';
/** Turn 1 hands off when it can, then the weather agent looks up twice, then the final text. */
function pickName(names: string[]): string | undefined {
  return names.find((name) => name.startsWith('transfer_to_')) ?? (names.includes('lookup') ? 'lookup' : undefined);
}
const pick = (names: string[]): ToolPick | undefined => {
  const name = pickName(names);
  return name === undefined ? undefined : { name, input: name === 'lookup' ? { city: 'Paris' } : {} };
};
const MODELS = ['oc/o4-mini', 'or/gpt-5', 'ant/claude-up', 'google/gemini-2.5-flash'];

describe('the OpenAI Agents SDK through the gateway', () => {
  let up: FourUpstreams;
  let sdk: any;
  let z: any;
  /** The bodies the SDK sent the gateway. */
  const sent: any[] = [];

  beforeAll(async () => {
    await ensureTestClients();
    up = await startFourUpstreams({ pick, toolTurns: 2, reasoningOpenAI: true });
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    sdk = await clientModule('@openai/agents');
    z = await clientModule('zod');
    const { default: OpenAI } = await clientModule('openai');
    sdk.setTracingDisabled(true);
    const record = async (url: string, init?: { body?: unknown }) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
      return fetch(url, init as RequestInit);
    };
    sdk.setDefaultOpenAIClient(new OpenAI({ baseURL: `${up.gateway.url}/v1`, apiKey: up.gateway.key, maxRetries: 0, fetch: record }));
  }, 900_000);
  afterAll(async () => {
    sdk?.setOpenAIAPI('responses');
    await up?.close();
  });

  const rejections = () => up.rejections();
  const upstreamBodies = () => [up.chat, up.responses, up.messages, up.gemini].flatMap((fake) => fake.requests).map((r) => JSON.stringify(r.json));
  beforeEach(() => {
    up.reset();
    sent.length = 0;
  });

  const lookup = () => sdk.tool({ name: 'lookup', description: 'Weather of a city', parameters: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` });
  const settings = { reasoning: { effort: 'low' } };
  const weatherAgent = (model: string) => new sdk.Agent({ name: 'Weather agent', instructions: 'Answer weather questions with the lookup tool.', model, modelSettings: settings, tools: [lookup()] });
  const calls = (result: any) => result.newItems.filter((item: any) => item.type === 'tool_call_item' || item.type === 'handoff_call_item').map((item: any) => item.rawItem.name);

  it('an OpenAIResponsesCompactionSession compacts through the gateway (a bare OpenAI id, as the session requires)', async () => {
    sdk.setOpenAIAPI('responses');
    const session = new sdk.OpenAIResponsesCompactionSession({ model: 'gpt-5', shouldTriggerCompaction: () => true });
    const first = await sdk.run(weatherAgent('gpt-5'), 'Weather in Paris, twice?', { session });
    expect(first.finalOutput).toBe(FINAL);
    expect(up.responses.requests.some((r) => r.path.endsWith('/responses/compact'))).toBe(true);
    const items = await session.getItems();
    expect(items.some((item: any) => item.type === 'compaction')).toBe(true);
    const second = await sdk.run(weatherAgent('gpt-5'), 'And tomorrow?', { session });
    expect(rejections()).toEqual([]);
    expect(second.finalOutput).toBe(FINAL);
  });

  describe.each(['responses', 'chat_completions'])('%s API', (api) => {
    beforeAll(() => sdk.setOpenAIAPI(api));

    describe.each(MODELS)('%s', (model) => {
      it('an agent with a function tool over three turns', async () => {
        const result = await sdk.run(weatherAgent(model), 'Weather in Paris, twice?');
        expect(rejections()).toEqual([]);
        expect(result.finalOutput).toBe(FINAL);
        expect(calls(result)).toEqual(['lookup', 'lookup']);
        expect(result.newItems.filter((item: any) => item.type === 'tool_call_output_item').map((item: any) => item.output)).toEqual(['18°C in Paris', '18°C in Paris']);
        expect(result.state.usage.requests).toBe(3);
        expect(result.state.usage.inputTokens).toBeGreaterThan(0);
        expect(result.state.usage.outputTokens).toBeGreaterThan(0);
      });

      it('a handoff to a second agent', async () => {
        const weather = weatherAgent(model);
        const triage = sdk.Agent.create({ name: 'Triage', instructions: 'Hand weather questions to the weather agent.', model, modelSettings: settings, handoffs: [weather] });
        const result = await sdk.run(triage, 'Weather in Paris?');
        expect(rejections()).toEqual([]);
        expect(result.lastAgent.name).toBe('Weather agent');
        expect(calls(result)).toEqual(['transfer_to_Weather_agent', 'lookup']);
        expect(result.finalOutput).toBe(FINAL);
      });

      it('a streamed run', async () => {
        const result = await sdk.run(weatherAgent(model), 'Weather in Paris, twice?', { stream: true });
        let text = '';
        for await (const chunk of result.toTextStream()) text += chunk;
        await result.completed;
        expect(result.error ?? null).toBeNull();
        expect(rejections()).toEqual([]);
        expect(text).toBe(FINAL);
        expect(result.finalOutput).toBe(FINAL);
        expect(calls(result)).toEqual(['lookup', 'lookup']);
        expect(result.state.usage.inputTokens).toBeGreaterThan(0);
      });

      it('a zod outputType after a tool call', async () => {
        const agent = new sdk.Agent({ name: 'Weather agent', instructions: 'Answer in JSON.', model, modelSettings: settings, tools: [lookup()], outputType: z.object({ answer: z.string() }) });
        const result = await sdk.run(agent, 'Weather in Paris, in JSON?');
        expect(rejections()).toEqual([]);
        expect(result.finalOutput).toEqual({ answer: 'done' });
      });

      it('a second turn continues the first', async () => {
        const agent = new sdk.Agent({ name: 'Assistant', instructions: 'Be brief.', model, modelSettings: settings });
        const first = await sdk.run(agent, 'Remember the word pelican.');
        expect(first.finalOutput).toBe(FINAL);
        const second = api === 'responses' ? await sdk.run(agent, 'Which word?', { previousResponseId: first.lastResponseId }) : await sdk.run(agent, [...first.history, { role: 'user', content: 'Which word?' }]);
        expect(rejections()).toEqual([]);
        expect(second.finalOutput).toBe(FINAL);
        // The upstream's second request carries the first turn (rebuilt by the gateway from the stored response on Responses).
        const last = upstreamBodies().at(-1)!;
        expect(last).toContain('pelican');
        expect(last).toContain('Which word?');
        expect(last).toContain(FINAL);
      });

      // previousResponseId is the Responses API's (the Chat model ignores it with a warning).
      if (api === 'responses') {
        it('a run with tool calls chained on previousResponseId', async () => {
          const first = await sdk.run(new sdk.Agent({ name: 'Assistant', instructions: 'Be brief.', model, modelSettings: settings }), 'Remember the word pelican.');
          // Given a previousResponseId, the SDK sends each later call of the run as the new items only, chained on the last response.
          const second = await sdk.run(weatherAgent(model), 'Weather in Paris, twice?', { previousResponseId: first.lastResponseId });
          expect(rejections()).toEqual([]);
          expect(calls(second)).toEqual(['lookup', 'lookup']);
          expect(second.finalOutput).toBe(FINAL);
          const chained = sent.slice(1);
          expect(chained).toHaveLength(3);
          expect(chained[0].previous_response_id).toBe(first.lastResponseId);
          expect(new Set(chained.map((body) => body.previous_response_id)).size).toBe(3);
          expect(JSON.stringify(chained)).not.toContain('pelican');
          const last = upstreamBodies().at(-1)!;
          expect(last).toContain('pelican');
          expect(last.match(/18°C in Paris/g)).toHaveLength(2);
        });
      }

      it('two turns in a MemorySession after tool calls', async () => {
        const session = new sdk.MemorySession();
        const first = await sdk.run(weatherAgent(model), 'Weather in Paris, twice?', { session });
        expect(calls(first)).toEqual(['lookup', 'lookup']);
        // The session's history (reasoning, tool calls and results of turn 1) goes back as the input of turn 2.
        const second = await sdk.run(weatherAgent(model), 'And tomorrow?', { session });
        expect(rejections()).toEqual([]);
        expect(second.finalOutput).toBe(FINAL);
        const last = upstreamBodies().at(-1)!;
        expect(last).toContain('And tomorrow?');
        expect(last).toContain('Weather in Paris, twice?');
        // Turn 1's two results (the Gemini fake, counting a turn's own rounds, calls the tool twice more in turn 2).
        expect(last.match(/18°C in Paris/g)!.length).toBeGreaterThanOrEqual(2);
      });

      it('a streamed handoff to an agent with an outputType', async () => {
        const reporter = new sdk.Agent({ name: 'Weather agent', instructions: 'Answer in JSON.', model, modelSettings: settings, tools: [lookup()], outputType: z.object({ answer: z.string() }) });
        const triage = sdk.Agent.create({ name: 'Triage', instructions: 'Hand weather questions to the weather agent.', model, modelSettings: settings, handoffs: [reporter] });
        const result = await sdk.run(triage, 'Weather in Paris, in JSON?', { stream: true });
        for await (const _event of result);
        await result.completed;
        expect(result.error ?? null).toBeNull();
        expect(rejections()).toEqual([]);
        expect(calls(result)).toEqual(['transfer_to_Weather_agent', 'lookup']);
        expect(result.finalOutput).toEqual({ answer: 'done' });
      });
    });
  });
});
