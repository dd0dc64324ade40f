/**
 * The prompt cache an upstream in another format reports reaches each coding agent's own usage:
 * Claude Code's result (`usage.cache_read_input_tokens`), Codex's `turn.completed` event
 * (`usage.cached_input_tokens`) and gemini-cli's JSON stats (`tokens.cached`), over a tool loop
 * whose second request reads what the first one cached (Chat's `prompt_tokens_details`, Anthropic's
 * `cache_read_input_tokens`, Gemini's `cachedContentTokenCount`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { CLIENTS_DIR, CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');
type Json = Record<string, any>;

/** The conversation's first user turn: the same on every request of one run, so the second reads what the first cached. */
const firstTurn = (body: Json) => JSON.stringify(body.messages?.find((m: Json) => m.role === 'user') ?? (Array.isArray(body.input) ? body.input.find((i: Json) => i.role === 'user') : body.input) ?? null);

describe('prompt cache reads reach the coding agents\' usage on converted routes', () => {
  let workDir = '';
  const pick = (names: string[]) => {
    const target = path.join(workDir, 'hello.txt');
    if (names.includes('Write')) return { name: 'Write', input: { file_path: target, content: 'hi' } };
    if (names.includes('write_file')) return { name: 'write_file', input: { file_path: target, content: 'hi' } };
    if (names.includes('exec_command')) return { name: 'exec_command', input: { cmd: `printf hi > '${target}'`, workdir: workDir } };
    return undefined;
  };
  const cacheKey = (body: Json) => ({ lookup: firstTurn(body), store: firstTurn(body) });
  let chat: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      cacheKey,
      chat: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      messages: {},
      gemini: { models: { 'gemini-2.5-flash': { thinking: true, gemini3: false } }, cachedTokens: 100 },
    });
    ({ gateway: gw, chat, messages, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  it.each(['oc/gpt-4o-mini', 'gg/gemini-2.5-flash'])('Claude Code on %s: usage.cache_read_input_tokens', async (model) => {
    workDir = tempDir('gw-cache-');
    const run = await execa(claudeBin(), ['-p', 'Create hello.txt', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 3000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).toBe(0);
    const usage = JSON.parse(run.stdout).usage;
    // The Chat fake reads its cache on the second request (100 of 120); Gemini reports 100 cached on both.
    expect(usage.cache_read_input_tokens, report).toBe(model.startsWith('oc/') ? 100 : 200);
    expect(usage.input_tokens, report).toBe(model.startsWith('oc/') ? 140 : 40);
  });

  it.each(['ant/claude-up', 'oc/gpt-4o-mini', 'gg/gemini-2.5-flash'])('Codex on %s: turn.completed usage.cached_input_tokens', async (model) => {
    workDir = tempDir('gw-cache-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', 'Create hello.txt'], { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-3000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).toBe(0);
    const events = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const completed = events.find((event) => event.type === 'turn.completed');
    expect(completed?.usage, report).toMatchObject({ cached_input_tokens: model.startsWith('gg/') ? 200 : 100 });
  });

  it.each(['oc/gpt-4o-mini', 'ant/claude-up'])('gemini-cli on %s: stats tokens.cached', async (model) => {
    workDir = tempDir('gw-cache-');
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', model, '--yolo', '--output-format', 'json', '-p', 'Create hello.txt'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
    const report = `exit ${run.exitCode}\nstdout: ${String(run.stdout).slice(-3000)}\nstderr: ${String(run.stderr).slice(-2000)}`;
    expect(run.exitCode, report).toBe(0);
    const stats = JSON.parse(String(run.stdout)).stats;
    const tokens = Object.values(stats.models as Record<string, { tokens: Json }>).map((entry) => entry.tokens);
    expect(tokens.reduce((sum, t) => sum + (t.cached ?? 0), 0), report).toBe(100);
  }, 180_000);
});
