/**
 * Claude Code (the real CLI) switching models mid-session: a tool loop on one model, then the
 * session continued (`claude -c --model …`) on a model of another vendor. Its history then holds
 * the first model's reasoning as thinking blocks whose signature is the gateway's carried data
 * (OpenAI's encrypted reasoning, Gemini's signatures, Claude's own), and calls under ids that carry
 * Gemini's signatures; each must reach the new model only as far as it can read it. Strict fakes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

describe('Claude Code switching models mid-session through the gateway', () => {
  let workDir = '';
  let home = '';
  let written = 0;
  const pick = (names: string[]) => {
    written += 1;
    return names.includes('Write') ? { name: 'Write', input: { file_path: path.join(workDir, `f${written}.txt`), content: 'x' } } : undefined;
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

  const env = (model: string) => {
    const vars = clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' });
    if (home === '') home = vars.HOME;
    return { ...vars, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  };

  it.each([
    ['or/gpt-5', 'gg/gemini-3-flash-preview'],
    ['gg/gemini-3-flash-preview', 'or/gpt-5'],
    ['gg/gemini-3-flash-preview', 'oc/o4-mini'],
    ['or/gpt-5', 'oc/o4-mini'],
    ['oc/o4-mini', 'or/gpt-5'],
    ['ant/claude-up', 'or/gpt-5'],
    ['ant/claude-up', 'gg/gemini-3-flash-preview'],
    ['or/gpt-5', 'ant/claude-up'],
    ['gg/gemini-3-flash-preview', 'ant/claude-up'],
  ])('a tool loop on %s, then the session continued on %s', async (first, second) => {
    for (const fake of [chat, responses, messages, gemini]) fake.rejections.length = 0;
    workDir = tempDir('gw-claude-switch-');
    home = '';
    written = 0;
    const claude = (model: string, prompt: string, extra: string[]) =>
      execa(claudeBin(), [...extra, '-p', prompt, '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], { cwd: workDir, env: env(model), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const one = await claude(first, 'Create a file.', []);
    const two = await claude(second, 'Create another file.', ['-c']);
    const rejections = [...chat.rejections, ...responses.rejections, ...messages.rejections, ...gemini.rejections];
    const report = `first: exit ${one.exitCode} ${one.stdout.slice(0, 800)}\nsecond: exit ${two.exitCode} ${two.stdout.slice(0, 1500)} ${two.stderr.slice(-1000)}\nrejections: ${rejections.join(' | ')}`;
    expect(rejections, report).toEqual([]);
    expect(one.exitCode, report).toBe(0);
    expect(two.exitCode, report).toBe(0);
    expect(JSON.parse(two.stdout), report).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    expect(fs.readdirSync(workDir), report).toContain('f1.txt');
  });
});
