/**
 * The gateway the OpenRouter-fields tests (test/e2e/chat-openrouter-fields, responses-openrouter-fields)
 * call with the official openai SDK: `oai/gpt-5` (reasoning) and `oai/gpt-4.1` (not) on a strict fake
 * of OpenAI's API in the format under test, which refuses unknown parameters as OpenAI does;
 * `orr/anthropic/claude-sonnet-4.5` on an OpenRouter fake (`openRouterFields: 'forward'`) that answers
 * `hi` whole or streamed; with `claude`, `ant/claude-sonnet-4-5` on a strict Messages fake (thinking).
 */
import OpenAI from 'openai';
import { chatSse, namedSse, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { startStrictFake, type StrictFake } from './strict-fakes.ts';

type Json = Record<string, any>;

/** OpenRouter's own request fields an app written for it sends beside the reasoning object. */
export const OPENROUTER_FIELDS = {
  provider: { order: ['openai', 'azure'], allow_fallbacks: false, data_collection: 'deny' },
  plugins: [{ id: 'web', max_results: 3 }],
  transforms: ['middle-out'],
  route: 'fallback',
  usage: { include: true },
};

export interface OpenRouterFieldsGateway {
  openai: StrictFake;
  openrouter: FakeUpstream;
  /** With `claude` only. */
  claude?: StrictFake;
  gateway: SpawnedGateway;
  client: OpenAI;
  /** The body of the last request `fake` received. */
  last(fake: FakeUpstream): Json;
  close(): Promise<void>;
}

/** OpenRouter's answer on Chat: `hi`, whole or as chunks with the usage chunk. */
function chatAnswer(request: ReceivedRequest): FakeReply {
  const body = request.json as Json;
  const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, cost: 0.0001 };
  const base = { id: 'gen-1', created: 1_700_000_000, model: body.model };
  if (!body.stream) return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage } };
  return {
    headers: { 'content-type': 'text/event-stream' },
    sse: chatSse([
      { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] },
      { ...base, object: 'chat.completion.chunk', choices: [], usage },
    ]),
  };
}

/** OpenRouter's answer on its Responses API: `hi`, whole or as `response.created` and `response.completed`. */
function responsesAnswer(request: ReceivedRequest): FakeReply {
  const body = request.json as Json;
  const response = {
    id: 'gen-1', object: 'response', created_at: 1_700_000_000, status: 'completed', model: body.model,
    output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }],
    usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
  };
  if (!body.stream) return { json: response };
  return { headers: { 'content-type': 'text/event-stream' }, sse: namedSse([{ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }, { type: 'response.completed', response }]) };
}

/** Starts the fakes and the gateway for OpenRouter's fields on `format` (one try per request). */
export async function startOpenRouterFieldsGateway(format: 'chat' | 'responses', options: { claude?: boolean } = {}): Promise<OpenRouterFieldsGateway> {
  const openai = await startStrictFake({ format, models: { 'gpt-5': { maxOutput: 128000, reasoning: true }, 'gpt-4.1': { maxOutput: 32768, reasoning: false } } });
  const openrouter = await startFakeUpstream(format === 'chat' ? chatAnswer : responsesAnswer);
  const claude = options.claude ? await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } } }) : undefined;
  const formats = format === 'responses' ? { formats: ['responses'] } : {};
  const closeFakes = () => Promise.all([openai.close(), openrouter.close(), claude?.close()]);
  const gateway = await spawnGateway({
    config: {
      providers: {
        ...(claude ? { ant: { plugin: 'anthropic', baseURL: claude.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'thinking'] }] } } : {}),
        oai: { plugin: 'openai', baseURL: `${openai.url}/v1`, apiKey: 'x', ...formats, models: ['gpt-5', 'gpt-4.1'] },
        orr: { plugin: 'openai', baseURL: `${openrouter.url}/api/v1`, apiKey: 'x', ...formats, openRouterFields: 'forward', models: ['anthropic/claude-sonnet-4.5'] },
      },
      routing: { retry: { attempts: 1 } },
    },
  }).catch(async (error: unknown) => {
    await closeFakes();
    throw error;
  });
  return {
    openai,
    openrouter,
    claude,
    gateway,
    client: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 }),
    last: (fake) => fake.requests.at(-1)!.json as Json,
    close: async () => {
      await gateway.stop();
      await closeFakes();
    },
  };
}
