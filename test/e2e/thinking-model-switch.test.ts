/**
 * Switching models mid-session (docs/api-decisions.md, "Thinking across models"): an Anthropic SDK
 * client thinks on a GPT model served in another format (its reasoning reaches the client as a
 * thinking block whose signature carries OpenAI's encrypted reasoning, `gwpm:…`), then sends the
 * same history to a Claude model. Anthropic verifies every thinking block's signature and refuses
 * one it did not issue (the strict Messages fake does too), so the gateway takes out the thinking
 * blocks Anthropic cannot verify, and switches thinking off for a request whose tool loop then
 * has no signed thinking left, as the converted route does.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('thinking when the client switches to a Claude model', () => {
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  const pick = (names: string[]) => (names.includes('Write') ? { name: 'Write', input: { file_path: 'a.txt', content: 'x' } } : undefined);

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'my-claude': { maxOutput: 64000, reasoning: true } }, pick });
    gw = await spawnGateway({
      config: {
        providers: {
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: [{ id: 'gpt-5', maxOutputTokens: 128000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'my-claude', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
    await messages?.close();
  });

  const tools: Anthropic.Tool[] = [{ name: 'Write', description: 'Write a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } } }];
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };

  it.each([false, true])('GPT thinking, then the same history to Claude (stream: %s)', async (stream) => {
    messages.requests.length = 0;
    const ask = async (model: string, history: Anthropic.MessageParam[]) => {
      const params = { model, max_tokens: 4000, thinking, tools, messages: history };
      const { data, response } = stream ? { data: await anthropic.messages.stream(params).finalMessage(), response: undefined } : await anthropic.messages.create(params).withResponse();
      return { message: data, adapted: response?.headers.get('x-gateway-adapted') ?? null };
    };
    const question: Anthropic.MessageParam = { role: 'user', content: 'Write a.txt.' };
    // Turn 1 on GPT: its reasoning is a thinking block with the gateway's carried signature.
    const first = (await ask('or/gpt-5', [question])).message;
    expect(first.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^gwpm:/) });
    const use = first.content.find((block) => block.type === 'tool_use')!;

    // Turn 2 on Claude, in the middle of the tool loop: the GPT thinking block cannot go, so thinking is off for this request.
    const loop: Anthropic.MessageParam[] = [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'written' }] }];
    const second = await ask('ant/my-claude', loop);
    expect(messages.rejections).toEqual([]);
    expect(second.message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Done: the file is written.' })]);
    const sent = messages.requests.at(-1)!.json as Json;
    expect(sent.thinking).toBeUndefined();
    expect(sent.messages[1].content.map((block: Json) => block.type)).toEqual(['tool_use']);
    if (!stream) expect(second.adapted).toBe('thinking=dropped(1), thinking=off');

    // Turn 3, a new question: the GPT block is still taken out, and Claude thinks again.
    const next: Anthropic.MessageParam[] = [...loop, { role: 'assistant', content: second.message.content }, { role: 'user', content: 'Thanks. Anything else?' }];
    const third = await ask('ant/my-claude', next);
    expect(messages.rejections).toEqual([]);
    expect(third.message.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
    const resent = messages.requests.at(-1)!.json as Json;
    expect(resent.thinking).toEqual(thinking);
    expect(resent.messages[1].content.map((block: Json) => block.type)).toEqual(['tool_use']);
    if (!stream) expect(third.adapted).toBe('thinking=dropped(1)');
  });
});
