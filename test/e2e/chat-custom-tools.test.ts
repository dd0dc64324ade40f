/**
 * Chat Completions `custom` (freeform) tools from the openai SDK on upstreams that speak another
 * format (a Claude model over Messages, an OpenAI model over Responses): the tool goes up as a
 * function taking one string `input`, the model's call comes back as the Chat client's own
 * `{type: 'custom', custom: {name, input}}` (whole and streamed), and that call and its tool
 * message in the history go up as that function's call and result. Before, the tool and its
 * calls were dropped: the model never saw it, and the history's tool message was left orphaned.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch';
const pick = (names: string[]) => (names.includes('apply_patch') ? { name: 'apply_patch', input: { input: PATCH } } : undefined);
const TOOL = { type: 'custom' as const, custom: { name: 'apply_patch', description: 'Edit files with a patch.', format: { type: 'grammar' as const, grammar: { syntax: 'lark' as const, definition: 'start: /(.|\\n)+/' } } } };

describe('Chat custom tools on converted routes', () => {
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, pick, finalText: 'Patched.' });
    gw = await spawnGateway({
      config: { providers: { ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling'] }] } } },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await messages?.close();
  });

  it.each([false, true])('the openai SDK (stream %s) gets a custom call and the model reads its result', async (stream) => {
    messages.requests.length = 0;
    const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Add hello.txt.' }];
    let call: OpenAI.ChatCompletionMessageCustomToolCall | undefined;
    if (stream) {
      const chunks: unknown[] = [];
      for await (const chunk of await client.chat.completions.create({ model: 'ant/claude-up', messages: ask, tools: [TOOL], stream: true })) chunks.push(chunk);
      const deltas = chunks.flatMap((chunk: any) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
      expect(deltas).toEqual([expect.objectContaining({ index: 0, type: 'custom', custom: { name: 'apply_patch', input: PATCH } })]);
      call = { id: deltas[0].id, type: 'custom', custom: deltas[0].custom };
    } else {
      const answer = await client.chat.completions.create({ model: 'ant/claude-up', messages: ask, tools: [TOOL] });
      expect(answer.choices[0].finish_reason).toBe('tool_calls');
      call = answer.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageCustomToolCall;
    }
    expect(call).toMatchObject({ type: 'custom', custom: { name: 'apply_patch', input: PATCH } });
    const up = messages.requests[0].json as Record<string, any>;
    expect(up.tools).toEqual([expect.objectContaining({ name: 'apply_patch', description: 'Edit files with a patch.' })]);
    expect(JSON.stringify(up.tools[0].input_schema)).toContain('start: /');
    const next = await client.chat.completions.create({
      model: 'ant/claude-up',
      tools: [TOOL],
      messages: [...ask, { role: 'assistant', content: null, tool_calls: [call!] }, { role: 'tool', tool_call_id: call!.id, content: 'Done: added hello.txt' }],
    });
    expect(messages.rejections).toEqual([]);
    expect(next.choices[0].message.content).toBe('Patched.');
    const second = messages.requests[1].json as Record<string, any>;
    expect(second.messages[1].content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'apply_patch', input: { input: PATCH } })]);
    expect(second.messages[2].content).toEqual([expect.objectContaining({ type: 'tool_result', content: 'Done: added hello.txt' })]);
  });
});
