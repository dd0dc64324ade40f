/**
 * Claude Code (the real CLI) through the gateway over longer tool loops on reasoning models of
 * other formats: two rounds of two parallel Write calls with its thinking carried across turns
 * (a Chat reasoning model, a Responses one whose encrypted reasoning must come back paired with
 * its call, Gemini 3 whose calls are signed), and a long tool result (a Read of a ~75 kB file, under the 25,000 tokens Claude Code's Read
 * gives whole: it counts the file with count_tokens first, which the gateway answers from the
 * upstream's countTokens on Gemini and locally on Chat and Responses).
 * The strict fakes check what the real APIs check.
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

const LINES = Array.from({ length: 1000 }, (_, i) => `line ${String(i + 1).padStart(4, '0')}: ${'x'.repeat(60)}`);

describe('Claude Code through the gateway: longer loops on reasoning models, long tool results', () => {
  let workDir = '';
  let mode: 'write' | 'read' = 'write';
  let written = 0;
  const pick = (names: string[]) => {
    if (mode === 'read') return names.includes('Read') ? [{ name: 'Read', input: { file_path: path.join(workDir, 'long.txt') } }] : undefined;
    if (!names.includes('Write')) return undefined;
    return [0, 1].map(() => {
      written += 1;
      return { name: 'Write', input: { file_path: path.join(workDir, `f${written}.txt`), content: `file ${written}` } };
    });
  };
  let chat: StrictFake;
  let responses: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      // Two rounds of two results (the strict fakes count results; the Gemini fake rounds).
      pick,
      toolTurns: 4,
      chat: { 'o4-mini': { maxOutput: 100000, reasoning: true }, 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      gemini: { models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true }, 'gemini-2.5-flash': { thinking: true, gemini3: false } }, toolTurns: 2 },
    });
    ({ gateway: gw, chat, responses, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  const claude = (model: string, prompt: string, tool: string) =>
    execa(claudeBin(), ['-p', prompt, '--model', model, '--allowedTools', tool, '--output-format', 'json', '--max-turns', '6'], {
      cwd: workDir,
      env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });

  it.each([
    ['oc/o4-mini', () => chat],
    ['or/gpt-5', () => responses],
    ['gg/gemini-3-flash-preview', () => gemini],
  ])('claude -p with %s: two rounds of two parallel Writes, thinking carried, then the answer', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    workDir = tempDir('gw-claude-code-');
    mode = 'write';
    written = 0;
    const run = await claude(model, 'Create four files here.', 'Write');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 3000)}\nstderr: ${run.stderr.slice(0, 3000)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(JSON.parse(run.stdout), report).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    expect(fs.readdirSync(workDir).sort(), report).toEqual(['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    expect(fake.requests.length, report).toBe(3);
  });

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['or/gpt-5', () => responses],
    ['gg/gemini-2.5-flash', () => gemini],
  ])('claude -p with %s reads a ~75 kB file (counted with count_tokens first): the whole result reaches the model', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    workDir = tempDir('gw-claude-code-');
    mode = 'read';
    fs.writeFileSync(path.join(workDir, 'long.txt'), `${LINES.join('\n')}\n`);
    const run = await claude(model, 'Read long.txt', 'Read');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 3000)}\nstderr: ${run.stderr.slice(0, 3000)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    const last = fake.requests.at(-1)!.body;
    expect(last, report).toContain(LINES[0]);
    expect(last, report).toContain(LINES.at(-1));
    if (fake === gemini) expect(gemini.requests.some((r) => r.path.endsWith(':countTokens')), report).toBe(true);
  });
});
