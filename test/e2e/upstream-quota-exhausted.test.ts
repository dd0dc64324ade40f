/**
 * An upstream that says the gateway's own account with it is out of credit (OpenAI's 429
 * `insufficient_quota`) cannot be mended by a wait: the gateway's answer must not invite the
 * client to repeat the request. The openai SDK (which retries every 429 unless told
 * `x-should-retry: false`) and the real Codex (which stops at a 429 whose `error.type` says
 * `insufficient_quota`) each send it once; the spec's code stays `rate_limit_exceeded`. In Google's
 * format the answer names no wait (no `RetryInfo`) and says "limit: 0", where gemini-cli stops.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execaNode } from 'execa';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, clientEnv, codexSaysHi, ensureTestClients } from '../helpers/test-clients.ts';

const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

/** What OpenAI answers an account without credit (429, its type and code both `insufficient_quota`). */
const NO_CREDIT = {
  error: {
    message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
};

describe('an upstream out of credit (insufficient_quota)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    upstream = await startFakeUpstream(() => ({ status: 429, json: NO_CREDIT }));
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it.each([
    ['responses', 'or/gpt-5'],
    ['chat', 'oc/gpt-4o-mini'],
  ])('the openai SDK (%s, default retries) asks once and gets 429 rate_limit_exceeded of type insufficient_quota', async (api, model) => {
    upstream.requests.length = 0;
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, timeout: 20_000 });
    const call = api === 'responses' ? client.responses.create({ model, input: 'hi' }) : client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    const error = await call.then(() => undefined, (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error?.code).toBe('rate_limit_exceeded');
    expect(error?.type).toBe('insufficient_quota');
    expect(error?.headers?.get('x-should-retry')).toBe('false');
    expect((error?.error as { details?: Record<string, unknown> }).details).toMatchObject({ upstream_code: 'insufficient_quota', upstream_quota_exhausted: true });
    expect(upstream.requests).toHaveLength(1);
  });

  it("the Gemini format names no wait (no RetryInfo) and says the quota's limit is 0", async () => {
    const response = await fetch(`${gw.url}/v1beta/models/oc/gpt-4o-mini:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(429);
    const body = (await response.json()) as { error: { status: string; message: string; details: Array<Record<string, unknown>> } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.message).toMatch(/limit: 0/);
    expect(body.error.details.map((detail) => detail['@type'])).not.toContain('type.googleapis.com/google.rpc.RetryInfo');
    expect(body.error.details[0]).toMatchObject({ reason: 'rate_limit_exceeded', domain: 'gateway' });
  });

  it('the real gemini-cli stops at once (it retried the 1 s RetryInfo ten times)', async () => {
    upstream.requests.length = 0;
    const workDir = tempDir('gw-gemini-cli-');
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', 'oc/gpt-4o-mini', '-p', 'Say hi.'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 90_000 });
    const report = `exit ${run.exitCode}\nstdout: ${String(run.stdout).slice(-2000)}\nstderr: ${String(run.stderr).slice(-3000)}\nrequests: ${upstream.requests.length}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.exitCode, report).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`, report).toMatch(/no credit left/);
    expect(upstream.requests.filter((request) => request.method === 'POST'), report).toHaveLength(1);
  }, 150_000);

  it('the real Codex stops at once with the quota message', async () => {
    upstream.requests.length = 0;
    const { run, report } = await codexSaysHi(gw, 'or/gpt-5', upstream);
    expect(run.exitCode, report).not.toBe(0);
    expect(run.stderr, report).toMatch(/quota/i);
    expect(run.stderr, report).not.toMatch(/Reconnecting/);
    expect(upstream.requests.filter((request) => request.method === 'POST'), report).toHaveLength(1);
  }, 150_000);
});

/** A stream that runs out of credit part-way: the upstream's first records (some text), then its own insufficient_quota error. */
function outOfCreditStream(format: 'chat' | 'responses'): string[] {
  const records = { chat: 3, responses: 5 }[format];
  const head = fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/matrix', format, 'text.sse.txt'), 'utf8').split('\n\n').slice(0, records).join('\n\n') + '\n\n';
  const tail =
    format === 'chat'
      ? `data: ${JSON.stringify(NO_CREDIT)}\n\n`
      : `event: error\ndata: ${JSON.stringify({ type: 'error', sequence_number: 5, code: 'insufficient_quota', message: NO_CREDIT.error.message, param: null })}\n\n`;
  return [head, tail];
}

describe('an upstream out of credit part-way through a stream', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    upstream = await startFakeUpstream((request) => {
      expect(request.json?.stream).toBe(true);
      return { sse: outOfCreditStream(request.path.endsWith('/responses') ? 'responses' : 'chat') };
    });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, timeout: 20_000 });

  /** What a stream threw once it had some text. */
  async function streamError<T>(stream: AsyncIterable<T>, textOf: (event: T) => string | undefined): Promise<{ text: string; error: any }> {
    let text = '';
    try {
      for await (const event of stream) text += textOf(event) ?? '';
    } catch (caught) {
      return { text, error: caught };
    }
    return { text, error: undefined };
  }

  it('the openai SDK streaming Responses on a Chat upstream reads type insufficient_quota in the error event', async () => {
    upstream.requests.length = 0;
    const stream = await openai().responses.create({ model: 'oc/gpt-4o-mini', input: 'hi', stream: true });
    const { text, error } = await streamError(stream, (event) => (event.type === 'response.output_text.delta' ? event.delta : undefined));
    expect(text).toMatch(/^Héllo/);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.type).toBe('insufficient_quota');
    expect(error.message).toMatch(/exceeded your current quota/);
    expect(upstream.requests).toHaveLength(1);
  });

  it('the openai SDK streaming Chat on a Responses upstream gets the HTTP answer\'s body', async () => {
    const stream = await openai().chat.completions.create({ model: 'or/gpt-5', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const { text, error } = await streamError(stream, (chunk) => chunk.choices[0]?.delta.content ?? undefined);
    expect(text).toMatch(/^Héllo/);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.type).toBe('insufficient_quota');
    expect(error.error.details).toMatchObject({ upstream_code: 'insufficient_quota', upstream_quota_exhausted: true });
  });

  it("a converted stream's response.failed says insufficient_quota, the code Codex reads (its error event keeps the spec's code)", async () => {
    const response = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'oc/gpt-4o-mini', input: 'hi', stream: true }) });
    const events = (await response.text()).split('\n\n').flatMap((record) => record.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6))));
    expect(events.find((event) => event.type === 'error')).toMatchObject({ code: 'rate_limit_exceeded', error: { type: 'insufficient_quota' } });
    // Before: rate_limit_exceeded, which Codex takes for a passing failure and retries the turn.
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'insufficient_quota' } } });
  });

  it('the real Codex on a Chat upstream stops at once with the quota message', async () => {
    upstream.requests.length = 0;
    const { run, report } = await codexSaysHi(gw, 'oc/gpt-4o-mini', upstream);
    expect(run.exitCode, report).not.toBe(0);
    expect(run.stderr, report).toMatch(/quota/i);
    // Before: "Reconnecting... 1/5" and five more upstream requests.
    expect(run.stderr, report).not.toMatch(/Reconnecting/);
    expect(upstream.requests.filter((request) => request.method === 'POST'), report).toHaveLength(1);
  }, 150_000);

  it('the Anthropic SDK streaming Messages on a Chat upstream gets the HTTP answer\'s body', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, timeout: 20_000 });
    const stream = anthropic.messages.stream({ model: 'oc/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const { text, error } = await streamError(stream, (event) => (event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : undefined));
    expect(text).toMatch(/^Héllo/);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.error.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', details: { upstream_quota_exhausted: true } });
  });
});
