/**
 * Codex (the real binary) switching models mid-session: a tool loop on one model, then the same
 * session resumed (`codex exec resume --last`) on a model of another vendor. Its history then holds
 * the first model's reasoning as reasoning items (the gateway's `rs_gw…` ids, another vendor's data
 * carried in `encrypted_content`) and calls under the gateway's ids (a Gemini call's carries its
 * thought signature). Going to an OpenAI Responses model (a passthrough), OpenAI decrypts only its
 * own encrypted_content, looks an item without it up by id, and caps an item id at 64 characters:
 * the strict fake refuses all three as OpenAI does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { CODEX_JS, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

describe('Codex switching models mid-session through the gateway', () => {
  let workDir = '';
  let written = 0;
  const pick = (names: string[]) => {
    written += 1;
    return names.includes('exec_command') ? { name: 'exec_command', input: { cmd: `printf x > 'f${written}.txt'`, workdir: workDir } } : undefined;
  };
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: {},
      gemini: { models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } } },
    });
    ({ gateway: gw, chat, responses, messages, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  it.each([
    ['gg/gemini-3-flash-preview', 'or/gpt-5'],
    ['ant/claude-up', 'or/gpt-5'],
    ['or/gpt-5', 'ant/claude-up'],
    ['or/gpt-5', 'gg/gemini-3-flash-preview'],
    ['gg/gemini-3-flash-preview', 'ant/claude-up'],
    ['ant/claude-up', 'oc/o4-mini'],
    ['gg/gemini-3-flash-preview', 'oc/o4-mini'],
    ['oc/o4-mini', 'or/gpt-5'],
  ])('a tool loop on %s, then the session resumed on %s', async (first, second) => {
    for (const fake of [chat, responses, messages, gemini]) fake.rejections.length = 0;
    workDir = tempDir('gw-codex-switch-');
    written = 0;
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const config = (model: string) => [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n');
    const options = { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' as const };
    const exec = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never'];
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config(first));
    const one = await execa(process.execPath, [CODEX_JS, ...exec, 'Create a file.'], options);
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config(second));
    const two = await execa(process.execPath, [CODEX_JS, ...exec, 'resume', '--last', 'Create another file.'], options);
    const rejections = [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
    const report = `first: exit ${one.exitCode} ${one.stderr.slice(-1500)}\nsecond: exit ${two.exitCode} ${two.stderr.slice(-2500)}\nrejections: ${rejections.join(' | ')}`;
    expect(rejections, report).toEqual([]);
    expect(one.exitCode, report).toBe(0);
    expect(two.exitCode, report).toBe(0);
    expect(two.stdout, report).toContain('Done: the file is written.');
    // The first loop's file (the strict fakes count the session's results, so a second call is not certain).
    expect(fs.readdirSync(workDir), report).toContain('f1.txt');
  });
});
