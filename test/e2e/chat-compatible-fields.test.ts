/**
 * A Responses client (Codex sends `prompt_cache_key` on every request) on a model of an
 * OpenAI-compatible Chat server that is not OpenAI: Groq refuses any field it does not know
 * (400 "property 'prompt_cache_key' is unsupported"), as Gemini's OpenAI endpoint does. The
 * gateway sends OpenAI's own fields (`prompt_cache_key`, `prompt_cache_retention`,
 * `service_tier`, `safety_identifier`) on a converted request to OpenAI's models only. The fake
 * here is Groq's: the strict Chat fake's answers, behind Groq's list of request fields.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { createStrictHandler, startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

/** The request fields Groq's Chat Completions takes (console.groq.com/docs/api-reference). */
const GROQ_KEYS = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n', 'stop', 'seed',
  'presence_penalty', 'frequency_penalty', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning_effort', 'reasoning_format',
  'include_reasoning', 'response_format', 'user', 'metadata', 'logprobs', 'top_logprobs', 'logit_bias',
]);

describe("OpenAI's own fields from a Responses client reach only OpenAI's models", () => {
  let groq: FakeUpstream;
  let openaiFake: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  const refused: string[] = [];
  const MODELS = { 'llama-3.3-70b-versatile': { maxOutput: 32768, reasoning: false }, 'gpt-4.1': { maxOutput: 32768, reasoning: false } };

  beforeAll(async () => {
    const strict = createStrictHandler({ format: 'chat', models: MODELS, finalText: 'Hello there.' });
    groq = await startFakeUpstream((request) => {
      const unknown = Object.keys(request.json ?? {}).find((key) => !GROQ_KEYS.has(key));
      if (unknown === undefined) return strict.handle(request);
      refused.push(unknown);
      return { status: 400, json: { error: { message: `property '${unknown}' is unsupported`, type: 'invalid_request_error' } } };
    });
    openaiFake = await startStrictFake({ format: 'chat', models: MODELS, finalText: 'Hello there.' });
    gw = await spawnGateway({
      config: {
        providers: {
          groq: { plugin: 'openai', baseURL: `${groq.url}/openai/v1`, apiKey: 'x', models: ['llama-3.3-70b-versatile'] },
          oai: { plugin: 'openai', baseURL: `${openaiFake.url}/v1`, apiKey: 'x', models: ['gpt-4.1'] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await groq?.close();
    await openaiFake?.close();
  });
  beforeEach(() => {
    refused.length = 0;
    groq.requests.length = 0;
    openaiFake.requests.length = 0;
  });

  const ask = { input: 'Say hi', prompt_cache_key: 'conv-1', safety_identifier: 'user-hash', service_tier: 'priority' as const };

  it.each([false, true])('Codex-style on a Groq model: answered, without them (stream: %s)', async (stream) => {
    let text: string;
    if (stream) {
      const events = await openai.responses.create({ ...ask, model: 'groq/llama-3.3-70b-versatile', stream: true });
      text = '';
      for await (const event of events) if (event.type === 'response.output_text.delta') text += event.delta;
    } else {
      text = (await openai.responses.create({ ...ask, model: 'groq/llama-3.3-70b-versatile' })).output_text;
    }
    // Before: 400 "The provider 'groq' rejected the request: property 'prompt_cache_key' is unsupported".
    expect(refused).toEqual([]);
    expect(text).toBe('Hello there.');
    const sent = groq.requests[0].json as Json;
    expect([sent.prompt_cache_key, sent.safety_identifier, sent.service_tier]).toEqual([undefined, undefined, undefined]);
  });

  it('on an OpenAI model they go along', async () => {
    await openai.responses.create({ ...ask, model: 'oai/gpt-4.1' });
    expect(openaiFake.rejections).toEqual([]);
    expect(openaiFake.requests[0].json).toMatchObject({ prompt_cache_key: 'conv-1', safety_identifier: 'user-hash', service_tier: 'priority' });
  });
});
