/**
 * gemini-cli (the real CLI, pinned in test/clients) through the gateway (issue 22): `gemini -p`
 * non-interactive, `GOOGLE_GEMINI_BASE_URL` at the gateway and the gateway key as its API key,
 * writes a file with one tool call, the model served by the strict Gemini fake (passthrough)
 * and by a strict Chat fake (converted). HOME is a fresh temp dir; nothing leaves 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { CLIENTS_DIR, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';
const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

describe('gemini-cli through the gateway', () => {
  let workDir = '';
  let gemini: GeminiFake;
  let chat: StrictFake;
  let messages: StrictFake;
  /** OpenAI Responses (gpt-5 reasons: its reasoning items must come back paired with their calls). */
  let responses: StrictFake;
  /** A Chat upstream whose streams fail part-way: some text, then OpenAI's mid-stream error record. */
  let failing: FakeUpstream;
  let gw: SpawnedGateway;
  /** A fresh work dir and HOME for one gemini-cli run with `key`, settings for API-key auth (no telemetry, no updates). */
  const freshRun = (key: string) => {
    workDir = tempDir('gw-gemini-cli-');
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: key, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    return env;
  };
  const write = (names: string[]) => (names.includes('write_file') ? { name: 'write_file', input: { file_path: path.join(workDir, 'hello.txt'), content: CONTENT } } : undefined);

  beforeAll(async () => {
    await ensureTestClients();
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, pick: (names) => { const call = write(names); return call && [{ name: call.name, args: call.input }]; }, finalText: 'Done: the file is written.' });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick: write });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick: write });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick: write, toolTurns: 2 });
    const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flaky', choices: [{ index: 0, delta, finish_reason: null }] });
    failing = await startFakeUpstream(() => ({ sse: [...chatSse([chunk({ role: 'assistant', content: 'Partial ' })], false), 'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}\n\n'] }));
    gw = await spawnGateway({
      config: {
        providers: {
          flaky: { plugin: 'openai', baseURL: `${failing.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['flaky'] },
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
    await chat?.close();
    await messages?.close();
    await responses?.close();
    await failing?.close();
  });

  it.each([
    ['google/gemini-2.5-flash', () => gemini],
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['or/gpt-5', () => responses],
  ])('writes a file with one tool call on %s', async (model, fake) => {
    const before = fake().requests.length;
    const env = freshRun(gw.key!);
    const run = await execaNode(GEMINI_JS, ['-m', model, '--yolo', '-p', `Write the text "${CONTENT}" to the file hello.txt in ${workDir}.`], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8')).toBe(CONTENT);
    expect(String(run.stdout)).toContain('Done: the file is written.');
    expect(fake().rejections).toEqual([]);
    // The tool call, then the answer once its result is in, both through the gateway.
    const calls = fake().requests.slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    if (fake() === gemini) expect(calls.every((r) => r.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBe(true);
    if (fake() === messages) {
      // gemini-cli keeps no thoughts in its history, only the signed first call: Claude's signed thinking rides that call's
      // signature and comes back, so thinking stays on after the tool call (it was switched off there before).
      const second = calls.at(-1)!.json as { thinking?: unknown; messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }> };
      expect(second.thinking).toMatchObject({ type: 'enabled' });
      expect(second.messages.find((m) => m.role === 'assistant')!.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
    }
  }, 180_000);

  it('in Vertex AI mode (GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_VERTEX_BASE_URL at the gateway, the key as GOOGLE_API_KEY): the same file written, on Vertex paths', async () => {
    const before = gemini.requests.length;
    const env = freshRun(gw.key!);
    delete env.GOOGLE_GEMINI_BASE_URL;
    delete env.GEMINI_API_KEY;
    Object.assign(env, { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_VERTEX_BASE_URL: gw.url, GOOGLE_API_KEY: gw.key! });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'vertex-ai' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', 'google/gemini-2.5-flash', '--yolo', '-p', `Write the text "${CONTENT}" to the file hello.txt in ${workDir}.`], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8')).toBe(CONTENT);
    expect(String(run.stdout)).toContain('Done: the file is written.');
    expect(gemini.rejections).toEqual([]);
    const calls = gemini.requests.slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((r) => r.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBe(true);
  }, 180_000);

  it("stops at once on Google's used-up daily quota: the 429's QuotaFailure reaches gemini-cli, which does not retry it", async () => {
    // What Google answers a free-tier key past its daily requests: the quota's id names the day, and a short RetryInfo.
    const quota = {
      code: 429,
      message: 'You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: gemini-2.5-flash\nPlease retry in 17.07s.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' }, quotaValue: '250' }] },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' },
      ],
    };
    gemini.failNext({ status: 429, json: { error: quota } });
    const before = gemini.requests.length;
    const env = freshRun(gw.key!);
    // Without the QuotaFailure, gemini-cli took the 429 for a passing rate limit and retried it after 17 s (and got an answer).
    const run = await execaNode(GEMINI_JS, ['-m', 'google/gemini-2.5-flash', '-p', 'Say hi.'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 60_000 });
    expect(run.timedOut, `${run.stdout}\n${run.stderr}`).toBe(false);
    expect(run.exitCode).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`).toContain('daily quota');
    expect(gemini.requests.length - before).toBe(1);
  }, 180_000);

  it("stops at once on a used-up monthly token quota: the 429 says its wait in Google's RetryInfo (days), not retried for minutes", async () => {
    const cli = (args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'quota@example.com', '--credits', '1000', '--quota', '1'])).exitCode).toBe(0);
    const key = (JSON.parse(String((await cli(['keys', 'create', '--account', 'quota@example.com', '--json'])).stdout)) as { key: string }).key;
    const before = gemini.requests.length;
    const env = freshRun(key);
    // Without the RetryInfo, gemini-cli took the 429 for a passing rate limit: 10 attempts, 5 s to 30 s apart (over 3 minutes).
    const run = await execaNode(GEMINI_JS, ['-m', 'google/gemini-2.5-flash', '-p', 'Say hi.'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 90_000 });
    expect(run.timedOut, `${run.stdout}\n${run.stderr}`).toBe(false);
    expect(run.exitCode).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`).toContain('monthly token quota');
    expect(gemini.requests.length).toBe(before);
  }, 180_000);

  // @google/genai (under gemini-cli) read the gateway's `data:` error record as an answer without candidates: gemini-cli took
  // the stream for one that ended without a finish reason, asked again four times, printed the partial text each time and
  // exited 0, the failure only in a log line. Google writes the element bare; the SDK fails on it (docs/api-decisions.md).
  it('a stream that fails part-way on a converted route: gemini-cli fails (exit code not 0), not a stream without a finish reason', async () => {
    const env = freshRun(gw.key!);
    const run = await execaNode(GEMINI_JS, ['-m', 'flaky/flaky', '-p', 'Say hi.'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 90_000 });
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.timedOut, said).toBe(false);
    expect(said).not.toContain('Model stream ended without a finish reason');
    expect(run.exitCode, said).not.toBe(0);
    expect(said).toContain('Error when talking to Gemini API');
    // The upstream's words: @google/genai reads them only from a network chunk that is the bare element alone.
    expect(said).toContain('The server had an error while processing your request.');
    expect(said).not.toContain('Incomplete JSON segment');
  }, 180_000);
});
