/**
 * gemini-cli (the real CLI) switching models mid-session: a tool loop on one model, then the same
 * session resumed (`--resume latest`) on a model of another vendor. gemini-cli's history keeps each
 * turn's signed first call, whose thoughtSignature carries the first model's reasoning when that
 * model is not Gemini (`gwpm:`); Anthropic refuses a signature it did not issue, OpenAI encrypted
 * content it did not write. Strict fakes throughout. (Resuming on a Gemini model is not here:
 * gemini-cli 0.61's `--resume` with `-p` sends the first turn's function response twice, which
 * Gemini refuses whatever model the session began on, a Gemini one included.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { CLIENTS_DIR, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

describe('gemini-cli switching models mid-session through the gateway', () => {
  let workDir = '';
  let written = 0;
  const pick = (names: string[]) => {
    written += 1;
    return names.includes('write_file') ? { name: 'write_file', input: { file_path: path.join(workDir, `f${written}.txt`), content: 'x' } } : undefined;
  };
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: {},
      gemini: { models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } } },
    });
    ({ gateway: gw, responses, messages, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  it.each([
    ['gg/gemini-3-flash-preview', 'ant/claude-up'],
    ['gg/gemini-3-flash-preview', 'or/gpt-5'],
    ['ant/claude-up', 'or/gpt-5'],
    ['or/gpt-5', 'ant/claude-up'],
  ])('a tool loop on %s, then the session resumed on %s', async (first, second) => {
    for (const fake of [responses, messages, gemini]) fake.rejections.length = 0;
    workDir = tempDir('gw-gemini-switch-');
    written = 0;
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const options = { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 };
    const one = await execaNode(GEMINI_JS, ['-m', first, '--yolo', '-p', 'Create a file.'], options);
    const two = await execaNode(GEMINI_JS, ['-m', second, '--yolo', '--resume', 'latest', '-p', 'Create another file.'], options);
    const rejections = [...responses.rejections, ...messages.rejections, ...gemini.rejections];
    const report = `first: exit ${one.exitCode} ${String(one.stdout).slice(-500)} ${String(one.stderr).slice(-1500)}\nsecond: exit ${two.exitCode} ${String(two.stdout).slice(-500)} ${String(two.stderr).slice(-2500)}\nrejections: ${rejections.join(' | ')}`;
    expect(rejections, report).toEqual([]);
    expect(one.exitCode, report).toBe(0);
    expect(two.exitCode, report).toBe(0);
    expect(String(two.stdout), report).toContain('Done: the file is written.');
    expect(fs.readdirSync(workDir), report).toContain('f1.txt');
  }, 180_000);
});
