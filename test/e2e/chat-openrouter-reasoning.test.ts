/**
 * OpenRouter's unified `reasoning` request field (`{effort}`, `{max_tokens}`, `{enabled}`), sent by
 * apps and SDKs written for OpenRouter through the openai SDK, reaches a converted upstream as
 * that upstream's own control: Anthropic's thinking budget, OpenAI Responses' reasoning effort.
 * Before, a Chat body's `reasoning` was carried only to Chat upstreams, so Claude and Responses
 * models answered without reasoning. Real CLI, official openai SDK, strict fakes.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe("OpenRouter's reasoning field on a converted Chat request", () => {
  let claude: StrictFake;
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    claude = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } } });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    gw = await spawnGateway({
      config: {
        providers: {
          ant: { plugin: 'anthropic', baseURL: claude.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([claude?.close(), responses?.close()]);
  });

  const ask = (model: string, reasoning: Json) => client.chat.completions.create({ model, max_tokens: 8000, messages: [{ role: 'user', content: 'think, then say hi' }], reasoning } as never);

  it('{max_tokens} becomes Claude\'s thinking budget; {enabled: false} turns thinking off', async () => {
    await ask('ant/claude-sonnet-4-5', { max_tokens: 3000 });
    expect(claude.rejections).toEqual([]);
    expect((claude.requests.at(-1)!.json as Json).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    await ask('ant/claude-sonnet-4-5', { enabled: false, max_tokens: 3000 });
    expect((claude.requests.at(-1)!.json as Json).thinking?.type ?? 'disabled').toBe('disabled');
  });

  it('{effort} becomes the Responses upstream\'s reasoning.effort', async () => {
    await ask('or/gpt-5', { effort: 'high' });
    expect(responses.rejections).toEqual([]);
    expect((responses.requests.at(-1)!.json as Json).reasoning).toMatchObject({ effort: 'high' });
    expect(responses.requests.at(-1)!.json).not.toHaveProperty('reasoning.max_tokens');
  });

  it('a bad effort is the 422 of reasoning_effort, naming reasoning.effort, before any upstream call', async () => {
    const before = claude.requests.length;
    const error = await ask('ant/claude-sonnet-4-5', { effort: 'enormous' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('reasoning.effort');
    expect(claude.requests.length).toBe(before);
  });
});
