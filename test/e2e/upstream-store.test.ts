/**
 * What `store` a converted request tells a Responses upstream. OpenAI keeps a Responses request
 * and its answer (30 days) unless the body says `store: false`, while a Chat Completions client's
 * default is not to store, and Anthropic and Gemini clients have no such setting: the gateway keeps
 * the history itself (previous_response_id is never forwarded), so a converted request says
 * `store: false` unless the client asked to store (Chat `store: true`).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

describe('store on a converted Responses upstream', () => {
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    gw = await spawnGateway({ config: { providers: { or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] } } } });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
  });

  const sent = () => responses.requests.at(-1)!.json as Record<string, unknown>;

  it('a Chat client that said nothing: store false (Chat\'s own default), streamed or not', async () => {
    await openai.chat.completions.create({ model: 'or/gpt-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(sent().store).toBe(false);
    const stream = await openai.chat.completions.create({ model: 'or/gpt-5', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _ of stream) void _;
    expect(sent().store).toBe(false);
  });

  it('a Chat client that asked to store: store true', async () => {
    await openai.chat.completions.create({ model: 'or/gpt-5', messages: [{ role: 'user', content: 'hi' }], store: true });
    expect(sent().store).toBe(true);
  });

  it('a Messages client (no such setting): store false', async () => {
    await anthropic.messages.create({ model: 'or/gpt-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(sent().store).toBe(false);
    expect(responses.rejections).toEqual([]);
  });
});
