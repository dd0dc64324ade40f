/**
 * Claude Code (the real CLI, pinned in test/clients) through the gateway on flows its users hit
 * beyond one tool call: parallel tool calls in one turn, an image its Read tool returns inside a
 * tool result, and an upstream stream that fails part-way, with the model served in another
 * format (Chat, Gemini). The fakes are strict (test/helpers/strict-fakes.ts, fake-gemini.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import type { FakeUpstream } from '../helpers/fake-upstream.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==', 'base64');

describe('Claude Code through the gateway: parallel calls, images, failing streams', () => {
  let workDir = '';
  let mode: 'parallel' | 'read' = 'parallel';
  const writes = (names: string[]) =>
    mode === 'parallel' && names.includes('Write')
      ? ['a.txt', 'b.txt'].map((file) => ({ name: 'Write', input: { file_path: path.join(workDir, file), content: `content of ${file}` } }))
      : mode === 'read' && names.includes('Read')
        ? [{ name: 'Read', input: { file_path: path.join(workDir, 'shot.png') } }]
        : undefined;
  let chat: StrictFake;
  let gemini: GeminiFake;
  let failingChat: FakeUpstream;
  let failingResponses: FakeUpstream;
  let failingGemini: FakeUpstream;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick: writes,
      chat: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      gemini: { models: { 'gemini-2.5-flash': { thinking: true, gemini3: false }, 'gemini-3-flash-preview': { thinking: true, gemini3: true } } },
      // A request without `stream` (Claude Code's fallback after a failed stream) gets the upstream's 500 in its format (Gemini's 503).
      failing: { chat: true, responses: true, gemini: { code: 503 }, whole: true },
    });
    ({ gateway: gw, chat, gemini } = up as Required<StrictUpstreams>);
    ({ chat: failingChat, responses: failingResponses, gemini: failingGemini } = up.failing as Required<StrictUpstreams['failing']>);
  }, 900_000);
  afterAll(() => up?.close());

  const claude = (model: string, prompt: string, tool: string) =>
    execa(claudeBin(), ['-p', prompt, '--model', model, '--allowedTools', tool, '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
  const reportOf = (run: { exitCode?: number; stdout: string; stderr: string }, rejections: string[]) => `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 3000)}\nstderr: ${run.stderr.slice(0, 3000)}\nrejections: ${rejections.join(' | ')}`;

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['gg/gemini-2.5-flash', () => gemini],
    ['gg/gemini-3-flash-preview', () => gemini],
  ])('claude -p with %s writes two files with two parallel Write calls in one turn', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    workDir = tempDir('gw-claude-code-');
    mode = 'parallel';
    const run = await claude(model, 'Create a.txt and b.txt in this directory.', 'Write');
    const report = reportOf(run, fake.rejections);
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'a.txt'), 'utf8'), report).toBe('content of a.txt');
    expect(fs.readFileSync(path.join(workDir, 'b.txt'), 'utf8'), report).toBe('content of b.txt');
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
  });

  it('claude -p with oc/gpt-4o-mini reads a PNG: the image reaches the Chat model in a user message', async () => {
    chat.requests.length = 0;
    workDir = tempDir('gw-claude-code-');
    mode = 'read';
    fs.writeFileSync(path.join(workDir, 'shot.png'), PNG);
    const run = await claude('oc/gpt-4o-mini', 'Look at shot.png', 'Read');
    const report = reportOf(run, chat.rejections);
    expect(chat.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    const sent = JSON.stringify(chat.requests.at(-1)!.json);
    expect(sent, report).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it.each(['fc/flaky', 'fr/flaky', 'fg/gemini-2.5-flash'])('claude -p with %s whose stream fails part-way: an error result, not a hang nor a success', async (model) => {
    workDir = tempDir('gw-claude-code-');
    const started = Date.now();
    const fake = { 'fc/flaky': failingChat, 'fr/flaky': failingResponses, 'fg/gemini-2.5-flash': failingGemini }[model]!;
    fake.requests.length = 0;
    const run = await claude(model, 'Say hi.', 'Write');
    const report = `${reportOf(run, [])}\nafter ${Date.now() - started} ms\nrequests: ${fake.requests.map((r) => `${r.method} ${r.path} stream=${String(r.json?.stream)}`).join(', ')}`;
    expect(run.timedOut, report).toBe(false);
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(said, report).toContain(UPSTREAM_ERROR);
    // One stream, then Claude Code's own fallback without streaming (which the gateway retries on the 5xx). Before, a
    // Responses upstream's response.failed came after the text block was closed: Claude Code kept the cut text as the
    // turn's answer ("Server error mid-response"), never saw the upstream's words, and streamed the request three more times.
    const streamed = fake.requests.filter((r) => r.json?.stream === true || r.path.includes(':streamGenerateContent'));
    expect(streamed.length, report).toBe(1);
  });
});
