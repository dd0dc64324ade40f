/**
 * LangChain (pinned in test/clients) through the gateway on flows beyond one tool call, with the
 * model served in another format: ChatOpenAI (Chat Completions and its Responses mode) and
 * ChatAnthropic streaming with two parallel tool calls, the tool results sent back and the final
 * answer streamed; an image in a message; and a stream that fails part-way raising the upstream's
 * words. Strict fakes throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import type { SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);
const TOOL = { type: 'function', function: { name: 'lookup', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

describe('LangChain through the gateway: parallel calls streamed, images, failing streams', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;
  let ChatOpenAI: any;
  let ChatAnthropic: any;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      toolTurns: 2,
      finalText: 'ok',
      chat: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: { vision: true },
      gemini: { models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, toolTurns: 1 },
      failing: { chat: true, messages: true },
    });
    ({ gateway: gw, chat, responses, messages, gemini } = up as Required<StrictUpstreams>);
    ({ ChatOpenAI } = await clientModule('@langchain/openai'));
    ({ ChatAnthropic } = await clientModule('@langchain/anthropic'));
  }, 900_000);
  afterAll(() => up?.close());

  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
  const llmOf = (kind: string, model: string) =>
    kind === 'anthropic'
      ? new ChatAnthropic({ model, apiKey: gw.key, anthropicApiUrl: gw.url, maxRetries: 0, maxTokens: 1024 })
      : new ChatOpenAI({ model, apiKey: gw.key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0, useResponsesApi: kind === 'openai-responses' });
  /** A streamed answer, its chunks concatenated. */
  const streamed = async (runnable: any, input: unknown) => {
    let total: any;
    for await (const chunk of await runnable.stream(input)) total = total === undefined ? chunk : total.concat(chunk);
    return total;
  };

  it.each([
    ['openai', 'ant/claude-up'],
    ['openai', 'or/gpt-5'],
    ['openai', 'gg/gemini-2.5-flash'],
    ['openai-responses', 'ant/claude-up'],
    ['openai-responses', 'oc/gpt-4o-mini'],
    ['openai-responses', 'gg/gemini-2.5-flash'],
    ['anthropic', 'oc/gpt-4o-mini'],
    ['anthropic', 'or/gpt-5'],
    ['anthropic', 'gg/gemini-2.5-flash'],
  ])('LangChain %s streaming on %s: two parallel tool calls, their results back, the answer streamed', async (kind, model) => {
    const llm = llmOf(kind, model).bindTools([TOOL]);
    const history: any[] = [{ role: 'user', content: 'Weather in Paris and London?' }];
    const first = await streamed(llm, history);
    expect(rejections()).toEqual([]);
    expect(first.tool_calls.map((call: any) => [call.name, call.args])).toEqual([['lookup', { city: 'Paris' }], ['lookup', { city: 'London' }]]);
    expect(new Set(first.tool_calls.map((call: any) => call.id)).size).toBe(2);
    history.push(first, ...first.tool_calls.map((call: any) => ({ role: 'tool', tool_call_id: call.id, content: `18°C in ${call.args.city}` })));
    // The fakes call again until two rounds of results are in (Gemini: one round).
    let answer = await streamed(llm, history);
    if (answer.tool_calls?.length) {
      history.push(answer, ...answer.tool_calls.map((call: any) => ({ role: 'tool', tool_call_id: call.id, content: `18°C in ${call.args.city}` })));
      answer = await streamed(llm, history);
    }
    expect(rejections()).toEqual([]);
    const text = typeof answer.content === 'string' ? answer.content : answer.content.map((part: any) => part.text ?? '').join('');
    expect(text).toBe('ok');
  });

  it.each([
    ['openai', 'ant/claude-up', () => messages],
    ['anthropic', 'oc/gpt-4o-mini', () => chat],
    ['openai-responses', 'gg/gemini-2.5-flash', () => gemini],
  ])('LangChain %s on %s: an image in a message reaches the model', async (kind, model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const image = kind === 'anthropic' ? { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } } : { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } };
    const answer = await llmOf(kind, model).invoke([{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image] }]);
    expect(rejections()).toEqual([]);
    expect(answer.text ?? answer.content).toBe('ok');
    expect(fake.requests.at(-1)!.body).toContain(PNG_BASE64);
  });

  it.each([
    ['openai', 'fm/flaky'],
    ['openai-responses', 'fc/flaky'],
    ['anthropic', 'fc/flaky'],
  ])('LangChain %s streaming on %s whose stream fails part-way: raises the upstream\'s words', async (kind, model) => {
    const error = await streamed(llmOf(kind, model), 'Say hi.').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain(UPSTREAM_ERROR);
  });
});
