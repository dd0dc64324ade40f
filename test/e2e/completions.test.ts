/**
 * `POST /v1/completions`, OpenAI's legacy text completions (openai's `client.completions.create`,
 * LangChain's `OpenAI` LLM class, eval harnesses), through the gateway: converted over a Chat
 * upstream (one prompt becomes one user turn; what a Chat upstream cannot honour is an OpenAI 400
 * naming the parameter) and passed through to an upstream that serves the route itself
 * (`formats: ['completions']`), against strict fakes. Key scopes, metrics and the request log
 * know the route.
 */
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;

/** The parameters OpenAI's /v1/completions takes (openai-node CompletionCreateParams); anything else is its 400. */
const COMPLETIONS_KEYS = new Set([
  'model', 'prompt', 'best_of', 'echo', 'frequency_penalty', 'logit_bias', 'logprobs', 'max_tokens', 'n', 'presence_penalty',
  'seed', 'stop', 'stream', 'stream_options', 'suffix', 'temperature', 'top_p', 'user',
]);

/** A strict legacy-completions upstream (OpenAI's, vLLM's): one prompt string, text_completion answers and chunks. */
function legacyReply(request: ReceivedRequest) {
  const body = request.json as Json;
  if (request.path !== '/v1/completions') return { status: 404, json: { error: { message: `Invalid URL (POST ${request.path})`, type: 'invalid_request_error', param: null, code: null } } };
  const unknown = Object.keys(body).find((key) => !COMPLETIONS_KEYS.has(key));
  if (unknown) return { status: 400, json: { error: { message: `Unrecognized request argument supplied: ${unknown}`, type: 'invalid_request_error', param: null, code: null } } };
  if (typeof body.prompt !== 'string') return { status: 400, json: { error: { message: 'this fake takes one prompt string', type: 'invalid_request_error', param: 'prompt', code: null } } };
  const head = { id: 'cmpl-up1', object: 'text_completion', created: 1_700_000_000, model: body.model };
  const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
  const logprobs = body.logprobs == null ? null : { tokens: [' up'], token_logprobs: [-0.1], top_logprobs: [{ ' up': -0.1 }], text_offset: [0] };
  if (!body.stream) return { json: { ...head, choices: [{ text: ' from up', index: 0, logprobs, finish_reason: 'stop' }], usage } };
  const chunks: Json[] = [' from', ' up'].map((text) => ({ ...head, choices: [{ text, index: 0, logprobs: null, finish_reason: null }] }));
  chunks.push({ ...head, choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }] });
  if (body.stream_options?.include_usage) chunks.push({ ...head, choices: [], usage });
  return { sse: chatSse(chunks) };
}

describe('/v1/completions (legacy text completions)', () => {
  let chat: StrictFake;
  let legacy: FakeUpstream;
  let gw: SpawnedGateway;
  let dir: string;
  let openai: OpenAI;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: 'ok' });
    legacy = await startFakeUpstream(legacyReply);
    dir = tempDir();
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          legacy: { plugin: 'openai', baseURL: `${legacy.url}/v1`, apiKey: 'x', formats: ['completions'], models: ['gpt-3.5-turbo-instruct'] },
        },
        logging: { requests: path.join(dir, 'requests.jsonl') },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await chat?.close();
    await legacy?.close();
  });

  it('openai completions.create on a Chat upstream: the prompt is one user turn, max_tokens/stop/temperature go along, a text_completion comes back', async () => {
    const done = await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.', max_tokens: 16, stop: '\n', temperature: 0 });
    expect(done).toMatchObject({ object: 'text_completion', model: 'gpt-4o-mini', choices: [{ text: 'ok', index: 0, logprobs: null, finish_reason: 'stop' }] });
    expect(done.id).toMatch(/^cmpl-/);
    expect(done.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 });
    const sent = chat.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.json).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 16, stop: ['\n'], temperature: 0 });
    expect(chat.rejections).toEqual([]);
  });

  it('without max_tokens asks for 16 tokens, the legacy API\'s default', async () => {
    await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: ['Say ok.'] });
    expect(chat.requests.at(-1)!.json).toMatchObject({ messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 16 });
  });

  it('streams text_completion chunks, the usage chunk when asked for, then [DONE]', async () => {
    const stream = await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.', max_tokens: 8, stream: true, stream_options: { include_usage: true } });
    const chunks: Json[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'text_completion' && /^cmpl-/.test(c.id))).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe('ok');
    const texts = chunks.filter((c) => c.choices.length > 0);
    expect(texts.at(-1)!.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', logprobs: null });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 } });
    const plain = await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.', stream: true });
    const seen: Json[] = [];
    for await (const chunk of plain) seen.push(chunk);
    expect(seen.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
  });

  it('echo: the prompt comes back before the completion, whole and streamed', async () => {
    const done = await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.', echo: true });
    expect(done.choices[0].text).toBe('Say ok.ok');
    const stream = await openai.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.', echo: true, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('Say ok.ok');
  });

  it.each([
    ['suffix', { prompt: 'def f(', suffix: '):' }],
    ['logprobs', { prompt: 'Say ok.', logprobs: 2 }],
    ['best_of', { prompt: 'Say ok.', best_of: 3 }],
    ['n', { prompt: 'Say ok.', n: 2 }],
    ['logit_bias', { prompt: 'Say ok.', logit_bias: { '50256': -100 } }],
    ['prompt', { prompt: ['one', 'two'] }],
    ['prompt', { prompt: [1, 2, 3] }],
  ])('what a Chat upstream cannot honour is an OpenAI 400 naming it, before any upstream call: %s', async (param, extra) => {
    const before = chat.requests.length;
    const error = (await openai.completions.create({ model: 'oc/gpt-4o-mini', ...(extra as any) }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param, type: 'invalid_request_error', code: 'bad_request' });
    expect(chat.requests.length).toBe(before);
  });

  it('a missing prompt is a 400 naming it', async () => {
    const res = await fetch(`${gw.url}/v1/completions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'oc/gpt-4o-mini' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 'bad_request', param: 'prompt', type: 'invalid_request_error' });
  });

  it('LangChain OpenAI (the legacy LLM class): invoke and stream on a Chat upstream', async () => {
    const { OpenAI: LangChainOpenAI } = await clientModule('@langchain/openai');
    const llm = new LangChainOpenAI({ model: 'oc/gpt-4o-mini', apiKey: gw.key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 });
    expect(await llm.invoke('Say ok.')).toBe('ok');
    let streamed = '';
    for await (const piece of await llm.stream('Say ok.')) streamed += piece;
    expect(streamed).toBe('ok');
    expect(chat.rejections).toEqual([]);
  });

  it.each(['@ai-sdk/openai', '@ai-sdk/openai-compatible'])('AI SDK completion model (%s): generateText and streamText on a Chat upstream', async (name) => {
    const ai = await clientModule('ai');
    const model =
      name === '@ai-sdk/openai'
        ? (await clientModule(name)).createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key }).completion('oc/gpt-4o-mini')
        : (await clientModule(name)).createOpenAICompatible({ name: 'gw', baseURL: `${gw.url}/v1`, apiKey: gw.key, includeUsage: true }).completionModel('oc/gpt-4o-mini');
    const done = await ai.generateText({ model, prompt: 'Say ok.', maxRetries: 0 });
    expect(done.text).toBe('ok');
    expect(done.finishReason).toBe('stop');
    expect(done.usage).toMatchObject({ inputTokens: 120, outputTokens: 20 });
    // The AI SDK writes its own transcript prompt and stop sequence; both reach the Chat upstream as one user turn.
    expect(chat.requests.at(-1)!.json).toMatchObject({ messages: [{ role: 'user', content: 'user:\nSay ok.\n\nassistant:\n' }], stop: ['\nuser:'] });
    const streamed = ai.streamText({ model, prompt: 'Say ok.', maxRetries: 0 });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe('ok');
    expect(await streamed.usage).toMatchObject({ inputTokens: 120, outputTokens: 20 });
    expect(chat.rejections).toEqual([]);
  });

  it('passes through to an upstream that serves /v1/completions (formats: [\'completions\']): suffix and logprobs as written, the answer as sent', async () => {
    const done = await openai.completions.create({ model: 'legacy/gpt-3.5-turbo-instruct', prompt: 'def f(', suffix: '):', logprobs: 1, max_tokens: 5 });
    expect(done).toMatchObject({ id: 'cmpl-up1', object: 'text_completion', choices: [{ text: ' from up', logprobs: { tokens: [' up'] } }], usage: { total_tokens: 8 } });
    const sent = legacy.requests.at(-1)!;
    expect(sent.path).toBe('/v1/completions');
    expect(sent.json).toEqual({ model: 'gpt-3.5-turbo-instruct', prompt: 'def f(', suffix: '):', logprobs: 1, max_tokens: 5 });
    const stream = await openai.completions.create({ model: 'legacy/gpt-3.5-turbo-instruct', prompt: 'Hi', stream: true });
    const chunks: Json[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    // The gateway asked for usage (billing); the client, who did not, gets no usage chunk.
    expect(legacy.requests.at(-1)!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe(' from up');
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
  });

  it('key scopes, metrics and the request log know the route', async () => {
    const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--json', '--endpoints', 'chat']);
    const chatOnly = (JSON.parse(String(created.stdout)) as { key: string }).key;
    const scoped = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: chatOnly, maxRetries: 0 });
    await expect(scoped.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.' })).rejects.toMatchObject({ status: 403, error: { code: 'authorization_error', details: { endpoint: 'completions' } } });
    const both = JSON.parse(String((await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--json', '--endpoints', 'chat,completions'])).stdout)) as { key: string };
    const allowed = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: both.key, maxRetries: 0 });
    expect((await allowed.completions.create({ model: 'oc/gpt-4o-mini', prompt: 'Say ok.' })).choices[0].text).toBe('ok');

    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{[^}]*route="\/v1\/completions"[^}]*\}/);
    expect(metrics).toMatch(/api_format="completions"/);

    expect(await gw.stop()).toBe(0); // flushes the log
    const lines = fs.readFileSync(path.join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(lines.find((line) => line.status === 200 && line.model === 'oc/gpt-4o-mini')).toMatchObject({ route: '/v1/completions', api_format: 'completions', provider: 'oc' });
    expect(lines.find((line) => line.model === 'legacy/gpt-3.5-turbo-instruct')).toMatchObject({ route: '/v1/completions', api_format: 'completions', provider: 'legacy', status: 200 });
  });
});
