/**
 * The credit hold covers a converted request's thinking budget. Anthropic counts thinking in
 * `max_tokens` and wants the budget below it, so a Chat or Responses client's reasoning (OpenRouter's
 * `reasoning.max_tokens`, `thinking.budget_tokens`, an effort) over its own small output cap goes to
 * Claude as `max_tokens` = budget + cap: the hold must be priced for that, or an account holding
 * credits for 16 tokens is answered 20,000 (charged only what its balance had: the operator pays
 * the rest). Real CLI, fake Anthropic upstream answering with the output it was allowed.
 *
 * OpenAI counts reasoning inside `max_completion_tokens` / `max_output_tokens` (the cap bounds
 * visible and reasoning output alike), so a request only an OpenAI upstream may serve is held its
 * cap alone: held the budget on top, a balance that covered the cap was refused (402) a request
 * it could pay. One that may fall back to Claude is still held the budget.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { PER_TOKEN } from '../helpers/credit-holds.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

describe('the hold covers the thinking budget a converted request gives Claude', () => {
  let claude: FakeUpstream;
  let openai: FakeUpstream;
  let gw: SpawnedGateway;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    // Claude writes all it is allowed: its max_tokens, thinking first.
    claude = await startFakeUpstream((request) => {
      const body = request.json as Json;
      const budget = body.thinking?.budget_tokens ?? 0;
      return {
        json: {
          id: 'msg_1', type: 'message', role: 'assistant', model: body.model, stop_reason: 'max_tokens', stop_sequence: null,
          content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'hi' }],
          usage: { input_tokens: 10, output_tokens: body.max_tokens, thinking_tokens: budget },
        },
      };
    });
    // OpenAI writes all it is allowed too: its cap, reasoning included.
    openai = await startFakeUpstream((request) => {
      const body = request.json as Json;
      if (request.path.endsWith('/responses')) {
        const cap = body.max_output_tokens as number;
        return {
          json: {
            id: 'resp_1', object: 'response', created_at: 1, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, model: body.model,
            output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }],
            usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: cap, output_tokens_details: { reasoning_tokens: cap - 1 }, total_tokens: 10 + cap },
          },
        };
      }
      const cap = body.max_completion_tokens as number;
      return {
        json: {
          id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'length' }],
          usage: { prompt_tokens: 10, completion_tokens: cap, total_tokens: 10 + cap, completion_tokens_details: { reasoning_tokens: cap - 1 } },
        },
      };
    });
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const openaiModel = (id: string) => ({ id, maxOutputTokens: 100000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'reasoning'], pricing: PER_TOKEN });
    const configFile = writeConfig(dir, {
      providers: {
        ant: {
          plugin: 'anthropic', baseURL: claude.url, apiKey: 'x',
          models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'thinking'], pricing: PER_TOKEN }],
        },
        oai: { plugin: 'openai', baseURL: `${openai.url}/v1`, apiKey: 'x', formats: ['chat', 'responses'], models: [openaiModel('o4-mini'), openaiModel('o3')] },
      },
      // o3 may fall back to Claude, which is given the budget on top of the cap.
      routing: { retry: { attempts: 1 }, models: { 'oai/o3': { fallbacks: ['ant/claude-sonnet-4-5'] } } },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    // An account each for the refusals: one served past its hold would leave the next at zero, refused for that.
    for (const [name, credits] of [['low0', 500], ['low1', 500], ['low2', 500], ['low3', 500], ['low4', 500], ['low5', 500], ['oai0', 500], ['oai1', 500], ['oai2', 500], ['oai3', 500], ['rich', 10_000_000]] as const) {
      expect((await cli(['accounts', 'create', '--email', `${name}@example.test`, '--tier', 'enterprise', '--credits', String(credits)])).exitCode).toBe(0);
      keys[name] = (JSON.parse(String((await cli(['keys', 'create', '--account', `${name}@example.test`, '--json'])).stdout)) as { key: string }).key;
    }
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await claude?.close();
    await openai?.close();
  });

  const client = (name: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[name], maxRetries: 0 });
  const asks: Array<[string, (openai: OpenAI) => Promise<unknown>, number]> = [
    ["Chat, OpenRouter's reasoning.max_tokens", (o) => o.chat.completions.create({ model: 'ant/claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], reasoning: { max_tokens: 20_000 } } as never), 20_016],
    ['Chat, thinking.budget_tokens', (o) => o.chat.completions.create({ model: 'ant/claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled', budget_tokens: 20_000 } } as never), 20_016],
    ["Chat, reasoning_effort 'max'", (o) => o.chat.completions.create({ model: 'ant/claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'max' } as never), 16_400],
    ["Responses, reasoning.effort 'max'", (o) => o.responses.create({ model: 'ant/claude-sonnet-4-5', max_output_tokens: 16, input: 'hi', reasoning: { effort: 'max' } } as never), 16_400],
    ["Responses, OpenRouter's reasoning.max_tokens", (o) => o.responses.create({ model: 'ant/claude-sonnet-4-5', max_output_tokens: 16, input: 'hi', reasoning: { max_tokens: 20_000 } } as never), 20_016],
  ];

  const gemini = (name: string) =>
    fetch(`${gw.url}/v1beta/models/ant/claude-sonnet-4-5:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': keys[name], 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16, thinkingConfig: { thinkingBudget: 20_000 } } }),
    });

  it("Gemini, thinkingConfig.thinkingBudget: the same 402 in Google's shape; served when covered, Claude asked for what was held", async () => {
    const before = claude.requests.length;
    const refused = await gemini('low5');
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as Json).error).toMatchObject({ code: 402 });
    expect(claude.requests.length).toBe(before);
    expect((await gemini('rich')).status).toBe(200);
    expect((claude.requests.at(-1)!.json as Json).max_tokens).toBe(20_016);
  });

  it.each(asks.map((ask, index) => [...ask, index] as const))('%s: a balance that covers the cap but not the budget is a 402 before any upstream call', async (_label, ask, _max, index) => {
    const before = claude.requests.length;
    const error = await ask(client(`low${index}`)).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(claude.requests.length).toBe(before);
  });

  it.each(asks)('%s: served when the balance covers it, Claude asked for what was held', async (_label, ask, maxTokens) => {
    await ask(client('rich'));
    expect((claude.requests.at(-1)!.json as Json).max_tokens).toBe(maxTokens);
  });

  // reasoning_effort 'high' is a budget of 4,096: 16 + 4,096 tokens at a credit each is past 500 credits, 16 is not.
  const chatHigh = (model: string) => (o: OpenAI) => o.chat.completions.create({ model, max_completion_tokens: 16, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' });
  const responsesHigh = (model: string) => (o: OpenAI) => o.responses.create({ model, max_output_tokens: 16, input: 'hi', reasoning: { effort: 'high' } });

  it.each([
    ['Chat, reasoning_effort high and max_completion_tokens', chatHigh('oai/o4-mini'), 'oai0', 'max_completion_tokens'],
    ['Responses, reasoning.effort high and max_output_tokens', responsesHigh('oai/o4-mini'), 'oai1', 'max_output_tokens'],
  ] as const)('%s on an OpenAI upstream: held the cap alone (reasoning counts inside it), so a balance that covers the cap is served', async (_label, ask, name, field) => {
    const before = openai.requests.length;
    await ask(client(name));
    expect(openai.requests.length).toBe(before + 1);
    expect((openai.requests.at(-1)!.json as Json)[field]).toBe(16);
  });

  it.each([
    ['Chat', chatHigh('oai/o3'), 'oai2'],
    ['Responses', responsesHigh('oai/o3'), 'oai3'],
  ] as const)('%s on an OpenAI model that may fall back to Claude: still held the budget on top (402 before any upstream call)', async (_label, ask, name) => {
    const before = openai.requests.length + claude.requests.length;
    const error = await ask(client(name)).catch((thrown: unknown) => thrown);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(openai.requests.length + claude.requests.length).toBe(before);
  });
});
