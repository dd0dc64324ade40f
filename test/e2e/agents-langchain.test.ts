/**
 * LangChain (pinned in test/clients: @langchain/openai, @langchain/anthropic) through the gateway
 * (issue 24): ChatOpenAI and ChatAnthropic, each on a passthrough and a converted route, with a
 * bound tool (turn 1 a call) and then a plain answer, against strict fakes; and the usage a
 * streamed ChatAnthropic reports (it reads input tokens from message_start only).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);

describe('LangChain through the gateway', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let ChatOpenAI: any;
  let ChatAnthropic: any;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick, finalText: 'ok' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick, finalText: 'ok' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
    ({ ChatOpenAI } = await clientModule('@langchain/openai'));
    ({ ChatAnthropic } = await clientModule('@langchain/anthropic'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages]) await fake?.close();
  });

  const TOOL = { type: 'function', function: { name: 'lookup', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

  it.each([
    ['openai', 'oc/gpt-4o-mini'],
    ['openai', 'ant/claude-up'],
    ['anthropic', 'ant/claude-up'],
    ['anthropic', 'oc/gpt-4o-mini'],
  ])('LangChain %s chat model on %s: a tool call, then a plain answer', async (kind, model) => {
    const llm =
      kind === 'openai'
        ? new ChatOpenAI({ model, apiKey: gw.key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 })
        : new ChatAnthropic({ model, apiKey: gw.key, anthropicApiUrl: gw.url, maxRetries: 0, maxTokens: 1024 });
    const first = await llm.bindTools([TOOL]).invoke('Weather in Paris?');
    expect(first.tool_calls?.[0]).toMatchObject({ name: 'lookup', args: { city: 'Paris' } });
    const plain = await llm.invoke('Say ok.');
    expect(plain.content).toBe('ok');
    expect([...chat.rejections, ...messages.rejections]).toEqual([]);
  });

  // ~120 tokens of prompt (4 characters a token), as many as the fakes report.
  const PROMPT = `Say ok. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8)}`;

  it.each(['ant/claude-up', 'oc/gpt-4o-mini'])('LangChain ChatAnthropic streaming on %s reports input tokens (message_start) and the upstream count reaches message_delta', async (model) => {
    const llm = new ChatAnthropic({ model, apiKey: gw.key, anthropicApiUrl: gw.url, maxRetries: 0, maxTokens: 1024 });
    let total: any;
    for await (const chunk of await llm.stream(PROMPT)) total = total === undefined ? chunk : total.concat(chunk);
    expect(total.content).toBe('ok');
    // LangChain sums message_start's input (message_delta's it takes as 0): before, a converted stream said 0.
    expect(total.usage_metadata.input_tokens).toBeGreaterThanOrEqual(90);
    expect(total.usage_metadata.input_tokens).toBeLessThanOrEqual(150);
    // A client that reads message_delta (the official SDK's MessageStream, the AI SDK, Claude Code) gets the upstream's own count.
    const sdk = new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 });
    const final = await sdk.messages.stream({ model, max_tokens: 1024, messages: [{ role: 'user', content: PROMPT }] }).finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 120, output_tokens: 20 });
    expect([...chat.rejections, ...messages.rejections]).toEqual([]);
  });
});
