/**
 * The AI SDK's and LangChain's Google models (Gemini clients) through the gateway with two
 * parallel calls of the same tool a step, on Chat, Responses and Messages upstreams. A Gemini
 * client may send its function responses back by name alone; two calls of one tool must still
 * get their own results (Paris's result to Paris's call), over two steps with thinking on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;
const FINAL = 'Done: the file is written.';
const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);

describe("Google clients' parallel calls of one tool on converted routes", () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;
  let ai: any;
  let z: any;
  let google: (id: string) => unknown;
  let ChatGoogleGenerativeAI: any;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      toolTurns: 4,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: {},
    });
    ({ gateway: gw, chat, responses, messages } = up as Required<StrictUpstreams>);
    ai = await clientModule('ai');
    z = await clientModule('zod');
    const { createGoogleGenerativeAI } = await clientModule('@ai-sdk/google');
    google = createGoogleGenerativeAI({ baseURL: `${gw.url}/v1beta`, apiKey: gw.key });
    ({ ChatGoogleGenerativeAI } = await clientModule('@langchain/google-genai'));
  }, 900_000);
  afterAll(() => up?.close());
  beforeEach(() => {
    for (const fake of [chat, responses, messages]) {
      fake.rejections.length = 0;
      fake.requests.length = 0;
    }
  });
  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections];
  const fakeOf = (model: string) => (model.startsWith('oc/') ? chat : model.startsWith('or/') ? responses : messages);

  /** Each call id the upstream issued, with the city it asked for, and the result the last request sends back for it. */
  function pairs(model: string): Array<[string, string]> {
    const body = fakeOf(model).requests.at(-1)!.json as Json;
    if (model.startsWith('oc/')) {
      const calls = new Map<string, string>(body.messages.flatMap((m: Json) => (m.tool_calls ?? []).map((c: Json) => [c.id, JSON.parse(c.function.arguments).city])));
      return body.messages.filter((m: Json) => m.role === 'tool').map((m: Json) => [calls.get(m.tool_call_id)!, m.content]);
    }
    if (model.startsWith('or/')) {
      const calls = new Map<string, string>(body.input.filter((i: Json) => i.type === 'function_call').map((c: Json) => [c.call_id, JSON.parse(c.arguments).city]));
      return body.input.filter((i: Json) => i.type === 'function_call_output').map((o: Json) => [calls.get(o.call_id)!, typeof o.output === 'string' ? o.output : JSON.stringify(o.output)]);
    }
    const blocks = body.messages.flatMap((m: Json) => (Array.isArray(m.content) ? m.content : []));
    const calls = new Map<string, string>(blocks.filter((b: Json) => b.type === 'tool_use').map((b: Json) => [b.id, b.input.city]));
    return blocks.filter((b: Json) => b.type === 'tool_result').map((b: Json) => [calls.get(b.tool_use_id)!, typeof b.content === 'string' ? b.content : JSON.stringify(b.content)]);
  }

  it.each(['oc/o4-mini', 'or/gpt-5', 'ant/claude-up'])('AI SDK streamText on %s: each result goes to its own call', async (model) => {
    const tools = { lookup: ai.tool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` }) };
    const result = ai.streamText({ model: google(model), prompt: 'Weather in Paris and London, twice?', tools, stopWhen: ai.stepCountIs(5), providerOptions: { google: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } }, maxRetries: 0, onError: () => {} });
    expect(await result.text).toBe(FINAL);
    expect(rejections()).toEqual([]);
    expect(await result.steps).toHaveLength(3);
    const sent = pairs(model);
    expect(sent).toHaveLength(4);
    for (const [city, output] of sent) expect(output).toContain(`18°C in ${city}`);
  });

  it.each(['oc/o4-mini', 'or/gpt-5', 'ant/claude-up'])('LangChain ChatGoogleGenerativeAI on %s: each result goes to its own call', async (model) => {
    const llm = new ChatGoogleGenerativeAI({ model, apiKey: gw.key, baseUrl: gw.url, maxRetries: 0 }).bindTools([{ type: 'function', function: { name: 'lookup', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
    const history: any[] = [{ role: 'user', content: 'Weather in Paris and London?' }];
    const first = await llm.invoke(history);
    expect(first.tool_calls.map((call: any) => call.args.city)).toEqual(['Paris', 'London']);
    history.push(first, ...first.tool_calls.map((call: any) => ({ role: 'tool', tool_call_id: call.id, name: call.name, content: `18°C in ${call.args.city}` })));
    await llm.invoke(history);
    expect(rejections()).toEqual([]);
    const sent = pairs(model);
    expect(sent).toHaveLength(2);
    for (const [city, output] of sent) expect(output).toContain(`18°C in ${city}`);
  });
});
