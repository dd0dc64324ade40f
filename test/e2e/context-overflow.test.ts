/**
 * A request longer than the model's context window, refused by the upstream in its own words
 * (OpenAI's `context_length_exceeded`, Anthropic's "prompt is too long", Gemini's input token
 * count), reaches a LangChain chat model on any route as the ContextOverflowError its
 * integration raises for its own provider's refusal (ChatOpenAI and ChatAnthropic read the
 * message), so an app that trims or summarises on overflow does so through the gateway too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

/** Each upstream's answer to a prompt over its model's context window (their documented wording). */
function overflow(path: string) {
  if (path.startsWith('/v1/chat/completions')) {
    return { status: 400, json: { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } };
  }
  if (path.startsWith('/v1/messages')) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } };
  return { status: 400, json: { error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } } };
}

describe('context overflow through the gateway', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let ChatOpenAI: any;
  let ChatAnthropic: any;

  beforeAll(async () => {
    await ensureTestClients();
    upstream = await startFakeUpstream((request) => overflow(request.path));
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', models: ['claude-up'] },
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: upstream.url, models: ['gemini-2.5-flash'] },
        },
      },
    });
    ({ ChatOpenAI } = await clientModule('@langchain/openai'));
    ({ ChatAnthropic } = await clientModule('@langchain/anthropic'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const MODELS = ['oc/gpt-4o-mini', 'ant/claude-up', 'google/gemini-2.5-flash'];

  it.each(MODELS)('ChatOpenAI on %s: a ContextOverflowError', async (model) => {
    const llm = new ChatOpenAI({ model, apiKey: gw.key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 });
    const error = await llm.invoke('a very long prompt').catch((e: unknown) => e);
    expect((error as Error).name, String(error)).toBe('ContextOverflowError');
  });

  it.each(MODELS)('ChatAnthropic on %s: a ContextOverflowError', async (model) => {
    const llm = new ChatAnthropic({ model, apiKey: gw.key, anthropicApiUrl: gw.url, maxRetries: 0, maxTokens: 1024 });
    const error = await llm.invoke('a very long prompt').catch((e: unknown) => e);
    expect((error as Error).name, String(error)).toBe('ContextOverflowError');
  });
});
