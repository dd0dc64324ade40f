/**
 * An upstream stream that stalls part-way (some text, then nothing, the connection left open),
 * on a route in another format, behind Claude Code, Codex and gemini-cli, with the provider's
 * `timeouts.idle` (and `firstByte`) short: each client must end with an error in its own format
 * within seconds, not wait for ever nor take the cut text for an answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

describe('an upstream stream that stalls part-way, behind the coding agents', () => {
  let stalled: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });
    // Streamed: some text, then silence; whole (a client's fallback): no answer at all.
    stalled = await startFakeUpstream((request) => ((request.json as { stream?: boolean } | undefined)?.stream ? { sse: chatSse([chunk({ role: 'assistant', content: 'Partial ' })], false), stall: true } : { fault: 'hang' }));
    gw = await spawnGateway({ config: { providers: { st: { plugin: 'openai', baseURL: `${stalled.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['m'], timeouts: { firstByte: 1500, idle: 1500 } } } } });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await stalled?.close();
  });

  it('Claude Code: an API error within seconds', async () => {
    const started = Date.now();
    const run = await execa(claudeBin(), ['-p', 'Say hi', '--model', 'st/m', '--output-format', 'json', '--max-turns', '2'], { cwd: tempDir(), env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: 'st/m', CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 90_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode} after ${Date.now() - started} ms\nstdout: ${run.stdout.slice(0, 1500)}\nstderr: ${run.stderr.slice(-1000)}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.exitCode, report).not.toBe(0);
    expect(JSON.parse(run.stdout), report).toMatchObject({ is_error: true });
  });

  it('Codex: the turn fails within seconds', async () => {
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), ['model = "st/m"', 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const started = Date.now();
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--color', 'never', 'Say hi'], { cwd: tempDir(), env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 90_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode} after ${Date.now() - started} ms\nstdout: ${run.stdout.slice(-1000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.exitCode, report).not.toBe(0);
  });

  it('gemini-cli: fails, not a hang', async () => {
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const started = Date.now();
    const run = await execaNode(GEMINI_JS, ['-m', 'st/m', '-p', 'Say hi'], { cwd: tempDir(), env, extendEnv: false, reject: false, timeout: 120_000 });
    const said = `exit ${run.exitCode} after ${Date.now() - started} ms\n${run.stdout}\n${String(run.stderr).slice(-2000)}`;
    expect(run.timedOut, said).toBe(false);
    expect(run.exitCode, said).not.toBe(0);
  }, 150_000);
});
