/**
 * LangChain (pinned in test/clients) tool loops with reasoning on a model of another format, the
 * reasoning carried back by LangChain itself: ChatAnthropic with thinking on (its thinking blocks,
 * signed by the gateway, go back in the AI message) on Responses, Chat and Gemini 3 upstreams, and
 * ChatOpenAI in its Responses mode with reasoning (its reasoning items, encrypted content included,
 * store off) on Messages, Gemini 3 and Chat upstreams. The strict fakes check the signatures and pairing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import type { SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const pick = (names: string[]) => (names.includes('lookup') ? [{ name: 'lookup', input: { city: 'Paris' } }, { name: 'lookup', input: { city: 'London' } }] : undefined);
const TOOL = { type: 'function', function: { name: 'lookup', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

describe('LangChain tool loops with reasoning carried back, on converted routes', () => {
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
      // Two rounds of two calls (the strict fakes count results; the Gemini fake rounds).
      pick,
      toolTurns: 4,
      finalText: 'ok',
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: {},
      gemini: { models: { 'gemini-3-pro-preview': { thinking: true, gemini3: true } }, toolTurns: 2 },
    });
    ({ gateway: gw, chat, responses, messages, gemini } = up as Required<StrictUpstreams>);
    ({ ChatOpenAI } = await clientModule('@langchain/openai'));
    ({ ChatAnthropic } = await clientModule('@langchain/anthropic'));
  }, 900_000);
  afterAll(() => up?.close());

  const rejections = () => [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];

  /** Invokes (or streams) until the model answers in text, the tool results sent back each round; the AI messages as LangChain made them. */
  async function loop(llm: any, stream: boolean) {
    const history: any[] = [{ role: 'user', content: 'Weather in Paris and London, twice?' }];
    for (let round = 0; round < 4; round += 1) {
      let answer: any;
      if (stream) for await (const chunk of await llm.stream(history)) answer = answer === undefined ? chunk : answer.concat(chunk);
      else answer = await llm.invoke(history);
      history.push(answer);
      if (!answer.tool_calls?.length) return { answer, rounds: round };
      for (const call of answer.tool_calls) history.push({ role: 'tool', tool_call_id: call.id, content: `18°C in ${call.args.city}` });
    }
    throw new Error('no answer after 4 rounds');
  }
  const textOf = (message: any) => (typeof message.content === 'string' ? message.content : message.content.filter((part: any) => part.type === 'text').map((part: any) => part.text).join(''));

  describe.each([false, true])('stream: %s', (stream) => {
    it.each(['or/gpt-5', 'oc/o4-mini', 'gg/gemini-3-pro-preview'])('ChatAnthropic with thinking on %s: two rounds of parallel calls, thinking sent back', async (model) => {
      const llm = new ChatAnthropic({ model, apiKey: gw.key, anthropicApiUrl: gw.url, maxRetries: 0, maxTokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }).bindTools([TOOL]);
      const { answer, rounds } = await loop(llm, stream);
      expect(rejections()).toEqual([]);
      expect(rounds).toBe(2);
      expect(textOf(answer)).toBe('ok');
    });

    it.each(['ant/claude-up', 'gg/gemini-3-pro-preview', 'oc/o4-mini'])('ChatOpenAI (Responses mode) with reasoning on %s: two rounds of parallel calls, reasoning items sent back', async (model) => {
      // ChatOpenAI sends `reasoning` and its include only for ids it knows as OpenAI reasoning models: given as request fields here.
      const llm = new ChatOpenAI({ model, apiKey: gw.key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0, useResponsesApi: true, zdrEnabled: true, modelKwargs: { reasoning: { effort: 'low', summary: 'auto' }, include: ['reasoning.encrypted_content'] } }).bindTools([TOOL]);
      const { answer, rounds } = await loop(llm, stream);
      expect(rejections()).toEqual([]);
      expect(rounds).toBe(2);
      expect(textOf(answer)).toBe('ok');
      if (model === 'ant/claude-up') {
        // Claude's signed thinking came back first in every later assistant turn.
        for (const request of messages.requests.slice(-2)) {
          const assistants = (request.json as any).messages.filter((m: any) => m.role === 'assistant');
          for (const message of assistants) expect(message.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
        }
      }
    });
  });
});
