/**
 * A reasoning model behind a Responses upstream, driven by clients of other formats through a
 * two-turn tool loop. The strict Responses fake pairs each reasoning item with the call item that
 * followed it, as OpenAI does: the client's second turn must bring both back, by their ids, or the
 * fake answers 400 "…was provided without its required following item".
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFourUpstreams, type FourUpstreams } from '../helpers/four-upstreams.ts';

const WEATHER = { name: 'get_weather', description: 'Current weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

describe('reasoning and its call item go back together to a Responses upstream', () => {
  let four: FourUpstreams;

  beforeAll(async () => {
    four = await startFourUpstreams({ pick: (names) => (names.includes('get_weather') ? { name: 'get_weather', input: { city: 'Paris' } } : undefined), toolTurns: 1, reasoningOpenAI: true });
  });
  afterAll(async () => {
    await four.close();
  });
  beforeEach(() => four.reset());

  /** The input items of the fake's last request: the reasoning item, then its call item with the id it issued. */
  function lastInputPairs(): Array<{ type: string; id?: string }> {
    const body = four.responses.requests.at(-1)!.json as { input: Array<{ type: string; id?: string }> };
    return body.input.filter((item) => item.type === 'reasoning' || item.type === 'function_call').map(({ type, id }) => ({ type, id }));
  }

  for (const stream of [false, true]) {
    it(`a Messages client (Anthropic SDK, thinking on), ${stream ? 'streamed' : 'JSON'}: the second turn is accepted`, async () => {
      const client = new Anthropic({ baseURL: four.gateway.url, apiKey: four.gateway.key!, maxRetries: 0 });
      const ask = async (messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> => {
        const params = { model: 'or/gpt-5', max_tokens: 2000, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, tools: [WEATHER], messages };
        return stream ? client.messages.stream(params).finalMessage() : client.messages.create(params);
      };
      const first = await ask([{ role: 'user', content: 'Weather in Paris?' }]);
      const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
      expect(first.content.some((block) => block.type === 'thinking')).toBe(true);
      const second = await ask([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18 C' }] },
      ]);
      expect(four.rejections()).toEqual([]);
      expect(second.stop_reason).toBe('end_turn');
      const pairs = lastInputPairs();
      expect(pairs.map((p) => p.type)).toEqual(['reasoning', 'function_call']);
      expect(pairs[1].id).toMatch(/^fc_/);
    });
  }

  it('a Chat client (openai SDK, reasoning_effort) sending the assistant message back whole: the second turn is accepted', async () => {
    const client = new OpenAI({ baseURL: `${four.gateway.url}/v1`, apiKey: four.gateway.key!, maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.input_schema } }];
    const user: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await client.chat.completions.create({ model: 'or/gpt-5', reasoning_effort: 'low', tools, messages: [user] });
    const message = first.choices[0].message;
    const call = message.tool_calls![0];
    const second = await client.chat.completions.create({
      model: 'or/gpt-5',
      reasoning_effort: 'low',
      tools,
      messages: [user, message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: '18 C' }],
    });
    expect(four.rejections()).toEqual([]);
    expect(second.choices[0].finish_reason).toBe('stop');
  });
});
