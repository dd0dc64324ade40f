/**
 * A request longer than the model's context window, refused by the upstream in its own words
 * (OpenAI's `context_length_exceeded`, Anthropic's "prompt is too long", Gemini's input token
 * count), reaches a LangChain chat model on any route as the ContextOverflowError its
 * integration raises for its own provider's refusal (ChatOpenAI and ChatAnthropic read the
 * message), so an app that trims or summarises on overflow does so through the gateway too.
 * A streamed Responses request gets it as OpenAI streams it (`response.failed` with
 * `context_length_exceeded`), which the real Codex reads as its context window being full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { execa } from 'execa';
import { claudeBin, clientEnv, clientModule, codexSaysHi, ensureTestClients } from '../helpers/test-clients.ts';
import { parseSse } from '../../src/sse/index.ts';

/** Each upstream's answer to a prompt over its model's context window (their documented wording). */
function overflow(path: string) {
  if (path.startsWith('/v1/chat/completions')) {
    return { status: 400, json: { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } };
  }
  // A Responses server that checks the length before streaming (vLLM-like): a 400 in OpenAI's words.
  if (path.startsWith('/v1/responses')) {
    return { status: 400, json: { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } } };
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
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
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

  const CODEX_MODELS = ['ant/claude-up', 'oc/gpt-4o-mini', 'or/gpt-5', 'google/gemini-2.5-flash'];

  it.each(CODEX_MODELS)('a streamed Responses request on %s fails as OpenAI streams an overflow', async (model) => {
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'a very long prompt', stream: true }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(text).map((record) => JSON.parse(record.data));
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3]);
    // The error event keeps the spec's code; response.failed says OpenAI's, which Codex reads.
    expect(events[2]).toMatchObject({ code: 'bad_request', error: { type: 'invalid_request_error', code: 'bad_request' } });
    expect(events[2].message).toContain('context_length_exceeded');
    expect(events[3].response).toMatchObject({ id: events[0].response.id, status: 'failed', model, error: { code: 'context_length_exceeded' } });
    // Asked whole, it is still the spec's 400.
    const whole = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'a very long prompt' }),
    });
    expect(whole.status).toBe(400);
    expect(((await whole.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  // Codex 0.171 knows an overflow by `context_length_exceeded` only (response.failed's code, or a 400's error.code):
  // it stops the turn with its context-window message instead of showing a raw 400 body.
  it.each(['ant/claude-up', 'oc/gpt-4o-mini', 'or/gpt-5'])('the real Codex on %s says it ran out of context window', async (model) => {
    const before = upstream.requests.length;
    const { run, report } = await codexSaysHi(gw, model, upstream);
    expect(run.exitCode, report).toBe(1);
    expect(run.stderr, report).toContain("Codex ran out of room in the model's context window");
    // No retry: one upstream call (Codex retries a failed response with any other code five times).
    expect(run.stderr, report).not.toContain('Reconnecting');
    expect(upstream.requests.length - before, report).toBe(1);
  }, 150_000);

  // Claude Code reads how far over the window a prompt is from Anthropic's "prompt is too long: N tokens > M maximum";
  // OpenAI and Gemini say the counts in their own words, which it did not read (it said only that it could not compact).
  it.each([
    ['oc/gpt-4o-mini', '128000'],
    ['google/gemini-2.5-flash', '1048576'],
  ])('the real Claude Code on %s says how far over the window the prompt is', async (model, limit) => {
    const run = await execa(claudeBin(), ['-p', 'say hi', '--model', model, '--output-format', 'json', '--max-turns', '1'], {
      cwd: tempDir('gw-claude-overflow-'),
      env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    const result = JSON.parse(run.stdout) as { terminal_reason?: string; result?: string };
    expect(result.terminal_reason, run.stdout).toBe('prompt_too_long');
    const actual = model.startsWith('google') ? '1200000' : '210000';
    expect(result.result, run.stdout).toContain(`~${actual} tokens (limit ${limit})`);
  }, 150_000);
});
