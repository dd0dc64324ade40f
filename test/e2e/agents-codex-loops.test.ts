/**
 * Codex CLI (the real binary) through the gateway over longer tool loops with reasoning on models
 * of other formats: two rounds of two parallel shell calls with its reasoning items sent back
 * (a Chat reasoning model, Claude's signed thinking, Gemini 3's signed calls), and a shell
 * command whose output is long (~200 kB on stdout). The fakes check what the real APIs check.
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

/** Codex's shell tool (newest first) running `script` in `dir`. */
function shellCall(names: string[], script: string, dir: string) {
  if (names.includes('exec_command')) return { name: 'exec_command', input: { cmd: script, workdir: dir } };
  if (names.includes('shell_command')) return { name: 'shell_command', input: { command: script, workdir: dir } };
  if (names.includes('shell')) return { name: 'shell', input: { command: ['bash', '-lc', script], workdir: dir } };
  return undefined;
}

describe('Codex through the gateway: longer loops with reasoning, long tool output', () => {
  let workDir = '';
  let mode: 'write' | 'long' = 'write';
  let written = 0;
  const pick = (names: string[]) => {
    if (mode === 'long') {
      const call = shellCall(names, `seq 1 30000 | sed 's/^/row /'`, workDir);
      return call && [call];
    }
    const calls = [0, 1].map(() => {
      written += 1;
      return shellCall(names, `printf '%s' 'file ${written}' > f${written}.txt`, workDir);
    });
    return calls.every((call) => call !== undefined) ? calls : undefined;
  };
  let chat: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      toolTurns: 4,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true } },
      messages: {},
      gemini: { models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, toolTurns: 2 },
    });
    ({ gateway: gw, chat, messages, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  async function codex(model: string, prompt: string) {
    workDir = tempDir('gw-codex-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const config = [`model = "${model}"`, 'model_provider = "gateway"', 'model_reasoning_effort = "low"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''];
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', prompt], {
      cwd: workDir,
      env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    return { run, report: (rejections: string[]) => `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrejections: ${rejections.join(' | ')}` };
  }

  it.each([
    ['oc/o4-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['gg/gemini-3-flash-preview', () => gemini],
  ])('codex exec with %s: two rounds of two parallel shell calls, reasoning sent back, then the answer', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'write';
    written = 0;
    const { run, report } = await codex(model, 'Create four files here.');
    expect(fake.rejections, report(fake.rejections)).toEqual([]);
    expect(run.exitCode, report(fake.rejections)).toBe(0);
    expect(fs.readdirSync(workDir).sort(), report(fake.rejections)).toEqual(['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    expect(run.stdout, report(fake.rejections)).toContain('Done: the file is written.');
    expect(fake.requests.filter((r) => !r.path.includes('count')).length, report(fake.rejections)).toBe(3);
    if (fake === messages) {
      const bodies = fake.requests.map((r) => r.json as Record<string, any>);
      for (const body of bodies.slice(1)) for (const message of body.messages.filter((m: any) => m.role === 'assistant')) expect(message.content[0], report(fake.rejections)).toMatchObject({ type: 'thinking' });
    }
  });

  it.each([
    ['oc/o4-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['gg/gemini-3-flash-preview', () => gemini],
  ])('codex exec with %s: a shell command with ~200 kB of output, the result reaches the model', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'long';
    const { run, report } = await codex(model, 'Count the rows.');
    expect(fake.rejections, report(fake.rejections)).toEqual([]);
    expect(run.exitCode, report(fake.rejections)).toBe(0);
    expect(run.stdout, report(fake.rejections)).toContain('Done: the file is written.');
    // Codex keeps the head and tail of a long output (its own truncation); both reach the model.
    const last = fake.requests.at(-1)!.body;
    expect(last, report(fake.rejections)).toContain('row 1\\n');
    expect(last, report(fake.rejections)).toContain('row 30000');
  });
});
