/**
 * Multi-turn conversations across formats through the real gateway: a two-turn tool loop with
 * the client in Messages and the upstream in Chat (and the reverse), and previous_response_id
 * chains on a Chat and a Messages upstream. The checks are on the second upstream request: the
 * tool result (or the stored history) must reach it in the right place with the right id.
 */
import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../src/ir/types.ts';
import { splitPieces, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const fixture = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/matrix', name), 'utf8');
const TEXT = 'Héllo wörld 👋!';
const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/** True when the conversation already holds a tool result (so the fake answers with text). */
function answersTool(format: WireFormat, body: Json): boolean {
  const messages = body.messages as Json[];
  if (format === 'chat') return messages.some((m) => m.role === 'tool');
  return messages.some((m) => Array.isArray(m.content) && m.content.some((block: Json) => block.type === 'tool_result'));
}

/** Turn 1 with tools → one get_weather call; a tool result or no tools → text. */
function fakeFor(format: WireFormat) {
  return (req: ReceivedRequest): FakeReply => {
    const body: Json = req.json ?? {};
    const scenario = body.tools?.length && !answersTool(format, body) ? 'tools' : 'text';
    return body.stream ? { sse: splitPieces([fixture(`${format}/${scenario}.sse.txt`)], 17) } : { json: JSON.parse(fixture(`${format}/${scenario}.json`)) };
  };
}

describe('multi-turn conversations across formats', () => {
  let chat: FakeUpstream;
  let messages: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    chat = await startFakeUpstream(fakeFor('chat'));
    messages = await startFakeUpstream(fakeFor('messages'));
    gw = await spawnGateway({
      config: {
        providers: {
          c: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', models: ['gpt-chat'] },
          a: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: ['claude-up'] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await chat?.close();
    await messages?.close();
  });
  beforeEach(() => {
    chat.requests.length = 0;
    messages.requests.length = 0;
  });

  describe('two-turn tool loop', () => {
    it.each([true, false])('Messages client → Chat upstream (stream: %s): the tool_result becomes a tool message with the call id', async (stream) => {
      const tools = [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema }];
      const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
      const ask = { model: 'c/gpt-chat', max_tokens: 500, tools };
      const first = stream ? await anthropic.messages.stream({ ...ask, messages: [question] }).finalMessage() : await anthropic.messages.create({ ...ask, messages: [question] });
      const use = first.content.find((block) => block.type === 'tool_use');
      expect(use).toEqual({ type: 'tool_use', id: 'call_W1aa', name: 'get_weather', input: { city: 'Paris' } });

      const followUp: Anthropic.MessageParam[] = [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: '18°C, cloudy' }, { type: 'text', text: 'And tomorrow?' }] },
      ];
      const second = stream ? await anthropic.messages.stream({ ...ask, messages: followUp }).finalMessage() : await anthropic.messages.create({ ...ask, messages: followUp });
      expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: TEXT })]);

      expect(chat.requests).toHaveLength(2);
      const sent = chat.requests[1].json!;
      expect(sent.messages).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'call_W1aa', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_W1aa', content: '18°C, cloudy' },
        { role: 'user', content: 'And tomorrow?' },
      ]);
      expect(sent.tools).toEqual([{ type: 'function', function: WEATHER }]);
    });

    it.each([true, false])('Chat client → Messages upstream (stream: %s): the tool message becomes a tool_result right after the tool_use', async (stream) => {
      const tools = [{ type: 'function' as const, function: WEATHER }];
      const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris?' };
      const ask = { model: 'a/claude-up', tools };
      const first = stream
        ? await openai.chat.completions.stream({ ...ask, messages: [question] }).finalChatCompletion()
        : await openai.chat.completions.create({ ...ask, messages: [question] });
      const message = first.choices[0].message;
      expect(message.tool_calls).toEqual([{ id: 'toolu_01W1', type: 'function', function: { name: 'get_weather', arguments: expect.any(String) } }]);
      const call = message.tool_calls![0];
      expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });

      const followUp: OpenAI.ChatCompletionMessageParam[] = [
        question,
        { role: 'assistant', content: message.content, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: message.tool_calls![0].id, content: '18°C, cloudy' },
      ];
      const second = stream
        ? await openai.chat.completions.stream({ ...ask, messages: followUp }).finalChatCompletion()
        : await openai.chat.completions.create({ ...ask, messages: followUp });
      expect(second.choices[0].message.content).toBe(TEXT);

      expect(messages.requests).toHaveLength(2);
      const sent = messages.requests[1].json!;
      expect(sent.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_01W1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01W1', content: '18°C, cloudy' }] },
      ]);
      expect(sent.max_tokens).toBe(4096);
      expect(sent.tools).toEqual([{ name: 'get_weather', description: 'Current weather', input_schema: WEATHER.parameters }]);
    });
  });

  describe.each([
    { format: 'chat' as const, model: 'c/gpt-chat', fake: () => chat },
    { format: 'messages' as const, model: 'a/claude-up', fake: () => messages },
  ])('previous_response_id with a $format upstream', ({ format, model, fake }) => {
    /** The conversation an upstream body carries, as `role: text` lines (tool calls and results with ids). */
    function conversation(body: Json): string[] {
      const lines: string[] = [];
      if (format === 'chat') {
        for (const m of body.messages as Json[]) {
          if (m.role === 'tool') lines.push(`tool ${m.tool_call_id}: ${m.content}`);
          else {
            if (m.content) lines.push(`${m.role}: ${typeof m.content === 'string' ? m.content : m.content.map((p: Json) => p.text).join('')}`);
            for (const call of m.tool_calls ?? []) lines.push(`${m.role} call ${call.id}: ${call.function.name} ${call.function.arguments}`);
          }
        }
        return lines;
      }
      if (body.system) lines.push(`system: ${body.system}`);
      for (const m of body.messages as Json[]) {
        for (const b of m.content as Json[]) {
          if (b.type === 'text') lines.push(`${m.role}: ${b.text}`);
          else if (b.type === 'tool_use') lines.push(`${m.role} call ${b.id}: ${b.name} ${JSON.stringify(b.input)}`);
          else if (b.type === 'tool_result') lines.push(`tool ${b.tool_use_id}: ${b.content}`);
        }
      }
      return lines;
    }

    it('the second turn carries the first turn\'s history (not its instructions); GET returns the stored response', async () => {
      const first = await openai.responses.stream({ model, instructions: 'Be brief.', input: 'Say hi' }).finalResponse();
      expect(first.id).toMatch(/^resp_/);
      const second = await openai.responses.create({ model, previous_response_id: first.id, input: 'Again, please.' });
      expect(second.output_text).toBe(TEXT);

      const sent = fake().requests;
      expect(sent).toHaveLength(2);
      expect(conversation(sent[0].json!)).toEqual(['system: Be brief.', 'user: Say hi']);
      // instructions are not inherited along previous_response_id (wire-formats pitfall 11)
      expect(conversation(sent[1].json!)).toEqual(['user: Say hi', `assistant: ${TEXT}`, 'user: Again, please.']);

      const stored = await openai.responses.retrieve(first.id);
      expect(stored.id).toBe(first.id);
      expect(stored.output_text).toBe(TEXT);
    });

    it('a tool call answered through previous_response_id reaches the upstream with its call id', async () => {
      const first = await openai.responses.create({ model, input: 'Weather in Paris?', tools: [{ type: 'function', ...WEATHER, strict: false }] });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      const second = await openai.responses.create({
        model,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call!.call_id, output: '18°C, cloudy' }],
        tools: [{ type: 'function', ...WEATHER, strict: false }],
      });
      expect(second.output_text).toBe(TEXT);

      const id = format === 'chat' ? 'call_W1aa' : 'toolu_01W1';
      expect(call!.call_id).toBe(id);
      expect(conversation(fake().requests[1].json!)).toEqual([
        'user: Weather in Paris?',
        'assistant: Let me check.',
        `assistant call ${id}: get_weather {"city":"Paris"}`,
        `tool ${id}: 18°C, cloudy`,
      ]);
    });

    it('an unknown previous_response_id is a 404 not_found, and nothing goes upstream', async () => {
      const error = await openai.responses.create({ model, previous_response_id: 'resp_nope', input: 'hi' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'not_found' });
      expect(fake().requests).toHaveLength(0);
      const missing = await openai.responses.retrieve('resp_nope').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    });
  });
});
