/**
 * Codex CLI (the real binary, pinned in test/clients) through the gateway on flows its users hit
 * beyond one tool call, with the model served in another format (Chat, Messages, Gemini): two
 * shell calls in parallel in one turn, an image attached to the prompt (`codex exec -i`), and an
 * upstream stream that fails part-way (Codex must stop with the upstream's words, not hang nor
 * report success). The fakes are strict (test/helpers/strict-fakes.ts, fake-gemini.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import type { GeminiFake } from '../helpers/fake-gemini.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { CODEX_JS, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==', 'base64');

/** Codex's shell tool (newest first) writing `file` with `text`. */
function shellCall(names: string[], file: string, text: string) {
  const script = `printf '%s' '${text}' > '${file}'`;
  if (names.includes('exec_command')) return { name: 'exec_command', input: { cmd: script, workdir: path.dirname(file) } };
  if (names.includes('shell_command')) return { name: 'shell_command', input: { command: script, workdir: path.dirname(file) } };
  if (names.includes('shell')) return { name: 'shell', input: { command: ['bash', '-lc', script], workdir: path.dirname(file) } };
  return undefined;
}

describe('Codex through the gateway: parallel calls, images, failing streams', () => {
  let workDir = '';
  let mode: 'parallel' | 'text' = 'parallel';
  const pick = (names: string[]) => {
    if (mode !== 'parallel') return undefined;
    const calls = ['a.txt', 'b.txt'].map((file) => shellCall(names, path.join(workDir, file), `content of ${file}`));
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
      chat: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      messages: { vision: true },
      gemini: { models: { 'gemini-2.5-flash': { thinking: true, gemini3: false }, 'gemini-3-flash-preview': { thinking: true, gemini3: true } } },
      failing: { chat: true, messages: true, gemini: { code: 500 } },
    });
    ({ gateway: gw, chat, messages, gemini } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  /** `codex exec` in a fresh directory on `model` through the gateway's Responses face, no retries. */
  async function codex(model: string, prompt: string, extra: string[] = []) {
    workDir = tempDir('gw-codex-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const config = [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''];
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
    const started = Date.now();
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', prompt, ...extra], {
      cwd: workDir,
      env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    return { run, report: (rejections: string[] = []) => `exit ${run.exitCode} after ${Date.now() - started} ms\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrejections: ${rejections.join(' | ')}` };
  }

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['gg/gemini-2.5-flash', () => gemini],
    ['gg/gemini-3-flash-preview', () => gemini],
  ])('codex exec with %s runs two shell calls in parallel in one turn', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'parallel';
    const { run, report } = await codex(model, 'Create a.txt and b.txt in this directory.');
    expect(fake.rejections, report(fake.rejections)).toEqual([]);
    expect(run.exitCode, report(fake.rejections)).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'a.txt'), 'utf8'), report()).toBe('content of a.txt');
    expect(fs.readFileSync(path.join(workDir, 'b.txt'), 'utf8'), report()).toBe('content of b.txt');
    expect(run.stdout, report()).toContain('Done: the file is written.');
  });

  it.each([
    ['oc/gpt-4o-mini', () => chat, (body: any) => JSON.stringify(body.messages)],
    ['ant/claude-up', () => messages, (body: any) => JSON.stringify(body.messages)],
    ['gg/gemini-2.5-flash', () => gemini, (body: any) => JSON.stringify(body.contents)],
  ])('codex exec -i shot.png with %s: the image reaches the model', async (model, fakeOf, said) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'text';
    const image = path.join(tempDir('gw-codex-image-'), 'shot.png');
    fs.writeFileSync(image, PNG);
    const { run, report } = await codex(model, 'What is in this image?', ['-i', image]);
    expect(fake.rejections, report(fake.rejections)).toEqual([]);
    expect(run.exitCode, report(fake.rejections)).toBe(0);
    expect(said(fake.requests.at(-1)!.json), report()).toContain(PNG.toString('base64'));
  });

  it.each(['fc/flaky', 'fm/flaky', 'fg/gemini-2.5-flash'])('codex exec with %s whose stream fails part-way: it stops with the upstream\'s words', async (model) => {
    mode = 'text';
    const { run, report } = await codex(model, 'Say hi.');
    expect(run.timedOut, report()).toBe(false);
    expect(run.exitCode, report()).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`, report()).toContain(UPSTREAM_ERROR);
  });
});
