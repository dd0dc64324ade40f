/**
 * Issue 23 (Bedrock): the real CLI with the `bedrock` plugin against a strict Bedrock fake that
 * recomputes SigV4 signatures and streams real event-stream frames split across TCP writes.
 * Claude goes through InvokeModel in the Messages format, Llama through Converse; the official
 * `openai` and `@anthropic-ai/sdk` clients talk to the gateway on all three routes.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { REDACTED, SIGNATURE } from '../helpers/fake-bedrock-replies.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const CLAUDE = 'bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const LLAMA = 'bedrock/meta.llama3-3-70b-instruct-v1:0';
// Claude through Converse (the config says so): reasoningContent instead of thinking blocks.
const CLAUDE_CONVERSE = 'bedrock/anthropic.claude-haiku-4-5-20251001-v1:0';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WEATHER: Anthropic.Tool[] = [
  { name: 'weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'forecast', description: 'Forecast for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
];
const CHAT_TOOLS: OpenAI.ChatCompletionTool[] = WEATHER.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema as Record<string, unknown> } }));
const CREDENTIALS = { accessKeyId: 'ASIAFAKEBEDROCK', secretAccessKey: 'fake/secret+key', sessionToken: 'FwoGZXIvYXdzEFAKETOKEN' };

describe('bedrock plugin (real CLI, strict Bedrock fake)', () => {
  let fake: FakeBedrock;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: [CREDENTIALS], apiKeys: ['ABSKfakebedrockapikey'] });
    gw = await spawnGateway({
      config: {
        providers: {
          bedrock: {
            plugin: 'bedrock', baseURL: fake.url, region: 'us-east-1', ...CREDENTIALS,
            models: [CLAUDE.slice(8), LLAMA.slice(8), { id: CLAUDE_CONVERSE.slice(8), formats: ['bedrock-converse'] }],
          },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.rejections.length = 0;
  });

  describe('Claude through InvokeModel (Messages)', () => {
    it('answers a Messages client as a passthrough, JSON and streamed', async () => {
      const message = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hello bedrock' }] });
      expect(message.content).toEqual([{ type: 'text', text: 'Bedrock Claude heard: hello bedrock' }]);
      expect(fake.requests[0].path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
      expect(fake.requests[0].json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100 });
      expect(fake.requests[0].json).not.toHaveProperty('model');
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'stream it' }] });
      const text: string[] = [];
      stream.on('text', (t) => text.push(t));
      const final = await stream.finalMessage();
      expect(text.join('')).toBe('Bedrock Claude heard: stream it');
      expect(text.length).toBeGreaterThan(2);
      expect(final.usage.output_tokens).toBe(9);
      expect(fake.requests[1].action).toBe('invoke-with-response-stream');
      expect(fake.rejections).toEqual([]);
    });

    it('answers Chat and Responses clients through conversion', async () => {
      const chat = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'from chat' }] });
      expect(chat.choices[0].message.content).toBe('Bedrock Claude heard: from chat');
      const chunks = await openai.chat.completions.create({ model: CLAUDE, stream: true, messages: [{ role: 'user', content: 'chat stream' }] });
      let streamed = '';
      for await (const chunk of chunks) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe('Bedrock Claude heard: chat stream');
      const response = await openai.responses.create({ model: CLAUDE, input: 'from responses' });
      expect(response.output_text).toBe('Bedrock Claude heard: from responses');
      expect(fake.rejections).toEqual([]);
    });
  });

  describe('Llama through Converse', () => {
    it('answers Chat, Responses and Messages clients, JSON and streamed', async () => {
      const chat = await openai.chat.completions.create({ model: LLAMA, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi llama' }] });
      expect(chat.choices[0].message.content).toBe('Converse heard: hi llama');
      expect(chat.model).toBe(LLAMA);
      expect(fake.requests[0].path).toBe('/model/meta.llama3-3-70b-instruct-v1%3A0/converse');
      expect(fake.requests[0].json).toMatchObject({ system: [{ text: 'be brief' }], messages: [{ role: 'user', content: [{ text: 'hi llama' }] }] });
      const chunks = await openai.chat.completions.create({ model: LLAMA, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream llama' }] });
      let streamed = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of chunks) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(streamed).toBe('Converse heard: stream llama');
      expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 9 });
      const response = await openai.responses.create({ model: LLAMA, input: 'from responses' });
      expect(response.output_text).toBe('Converse heard: from responses');
      const message = await anthropic.messages.create({ model: LLAMA, max_tokens: 50, messages: [{ role: 'user', content: 'from messages' }] });
      expect(message.content).toEqual([{ type: 'text', text: 'Converse heard: from messages' }]);
      expect(fake.rejections).toEqual([]);
    });
  });

  /** Two turns with parallel tool calls through the Anthropic SDK's stream: the calls, then their results. */
  async function messagesToolLoop(model: string) {
    const first: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather and forecast for Paris and Rome?' }];
    const turn1 = await anthropic.messages.stream({ model, max_tokens: 200, tools: WEATHER, messages: first }).finalMessage();
    const calls = turn1.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(turn1.stop_reason).toBe('tool_use');
    expect(calls.map((c) => [c.name, c.input])).toEqual([['weather', { city: 'Paris' }], ['forecast', { city: 'Rome' }]]);
    const results: Anthropic.ToolResultBlockParam[] = calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: 'sunny' }));
    const turn2 = await anthropic.messages.create({ model, max_tokens: 200, tools: WEATHER, messages: [...first, { role: 'assistant', content: turn1.content }, { role: 'user', content: results }] });
    expect(turn2.content).toEqual([{ type: 'text', text: 'Both cities are sunny.' }]);
    return calls;
  }

  /** The same with the OpenAI SDK's Chat stream. */
  async function chatToolLoop(model: string) {
    const first: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and forecast for Paris and Rome?' }];
    const stream = await openai.chat.completions.create({ model, stream: true, tools: CHAT_TOOLS, messages: first });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[call.index] ??= { id: '', name: '', arguments: '' };
        if (call.id) calls[call.index].id = call.id;
        if (call.function?.name) calls[call.index].name = call.function.name;
        calls[call.index].arguments += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['weather', { city: 'Paris' }], ['forecast', { city: 'Rome' }]]);
    const second: OpenAI.ChatCompletionMessageParam[] = [
      ...first,
      { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) },
      ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'sunny' })),
    ];
    const turn2 = await openai.chat.completions.create({ model, tools: CHAT_TOOLS, messages: second });
    expect(turn2.choices[0].message.content).toBe('Both cities are sunny.');
  }

  describe('tool use over two turns with parallel calls', () => {
    it('Invoke-Claude: Messages passthrough and Chat through conversion', async () => {
      const calls = await messagesToolLoop(CLAUDE);
      expect(calls.map((c) => c.id)).toEqual(['toolu_bdrk_0', 'toolu_bdrk_1']);
      await chatToolLoop(CLAUDE);
      expect(fake.rejections).toEqual([]);
    });

    it('Converse: both calls survive into a Messages stream (litellm #15307) and a Chat stream', async () => {
      await messagesToolLoop(LLAMA);
      await chatToolLoop(LLAMA);
      const second = fake.requests[1].json!;
      expect(second.toolConfig.tools.map((t: { toolSpec: { name: string } }) => t.toolSpec.name)).toEqual(['weather', 'forecast']);
      expect(second.messages[1].content.map((b: { toolUse: { toolUseId: string } }) => b.toolUse.toolUseId)).toEqual(['tooluse_bdrk_0', 'tooluse_bdrk_1']);
      expect(second.messages[2].content.map((b: { toolResult: { toolUseId: string } }) => b.toolResult.toolUseId)).toEqual(['tooluse_bdrk_0', 'tooluse_bdrk_1']);
      expect(fake.rejections).toEqual([]);
    });
  });

  describe('thinking signatures come back byte for byte', () => {
    async function thinkTwice(model: string, stream: boolean) {
      const first: Anthropic.MessageParam[] = [{ role: 'user', content: 'think about it' }];
      const params = { model, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: first };
      const turn1 = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      const thinking = turn1.content.find((b): b is Anthropic.ThinkingBlock => b.type === 'thinking');
      expect(thinking?.signature).toBe(SIGNATURE);
      expect(turn1.content.find((b) => b.type === 'redacted_thinking')).toEqual({ type: 'redacted_thinking', data: REDACTED });
      // The fake refuses the second turn unless both opaque values are exactly its own.
      const turn2 = await anthropic.messages.create({ ...params, messages: [...first, { role: 'assistant', content: turn1.content }, { role: 'user', content: 'and?' }] });
      expect(turn2.content.at(-1)).toEqual({ type: 'text', text: `${model === CLAUDE ? 'Bedrock Claude' : 'Converse'} heard: and?` });
    }

    it('Invoke-Claude (Messages passthrough), JSON and streamed', async () => {
      await thinkTwice(CLAUDE, false);
      await thinkTwice(CLAUDE, true);
      expect(fake.requests[1].json!.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: SIGNATURE });
      expect(fake.rejections).toEqual([]);
    });

    it('Claude through Converse: reasoningContent with its signature and redacted bytes, converted both ways', async () => {
      await thinkTwice(CLAUDE_CONVERSE, false);
      await thinkTwice(CLAUDE_CONVERSE, true);
      expect(fake.requests[0].json!.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
      expect(fake.requests[1].json!.messages[1].content.slice(0, 2)).toEqual([
        { reasoningContent: { reasoningText: { text: 'Let me think.', signature: SIGNATURE } } },
        { reasoningContent: { redactedContent: REDACTED } },
      ]);
      expect(fake.rejections).toEqual([]);
    });
  });

  it("a Chat client's reasoning_content sent back in a tool loop (the AI SDK's openai-compatible) reaches Claude on Converse unsigned-free, thinking off for that turn", async () => {
    const first: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and forecast for Paris and Rome?' }];
    const params = { model: CLAUDE_CONVERSE, tools: CHAT_TOOLS, reasoning_effort: 'low' as const };
    const turn1 = (await openai.chat.completions.create({ ...params, messages: first })).choices[0].message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(turn1.reasoning_content).toBe('Let me think.');
    const calls = turn1.tool_calls!.filter((c) => c.type === 'function');
    const second = [
      ...first,
      // What @ai-sdk/openai-compatible sends back: the reasoning text only (Chat has no signature).
      { role: 'assistant', content: null, reasoning_content: turn1.reasoning_content, tool_calls: calls },
      ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'sunny' })),
    ] as OpenAI.ChatCompletionMessageParam[];
    const turn2 = await openai.chat.completions.create({ ...params, messages: second });
    expect(turn2.choices[0].message.content).toBe('Both cities are sunny.');
    // Bedrock refuses a reasoningText without Claude's signature; and with thinking on, a continued tool turn must start with signed reasoning.
    const sent = fake.requests[1].json!;
    expect(sent.messages[1].content.map((b: object) => Object.keys(b)[0])).toEqual(['toolUse', 'toolUse']);
    expect(sent.additionalModelRequestFields?.thinking).toBeUndefined();
    expect(fake.rejections).toEqual([]);
  });

  it('takes images in on both paths', async () => {
    const content: OpenAI.ChatCompletionContentPart[] = [{ type: 'text', text: 'describe' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }];
    const llama = await openai.chat.completions.create({ model: LLAMA, messages: [{ role: 'user', content }] });
    expect(llama.choices[0].message.content).toBe('Converse heard: describe [image png]');
    expect(fake.requests[0].json!.messages[0].content[1]).toEqual({ image: { format: 'png', source: { bytes: PNG } } });
    const claude = await anthropic.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] });
    expect(claude.content).toEqual([{ type: 'text', text: 'Bedrock Claude heard: describe [image]' }]);
    expect(fake.rejections).toEqual([]);
  });
});
