/**
 * gemini-cli (the real CLI, pinned in test/clients) through the gateway on flows its users hit
 * beyond one tool call, with the model served in another format (Chat, Messages, Responses): two
 * write_file calls in parallel in one turn, an image named in the prompt (`@shot.png`, sent as
 * inline data), and a Messages or Responses upstream whose stream fails part-way. The fakes are
 * strict (test/helpers/strict-fakes.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR } from '../helpers/failing-streams.ts';
import { tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { StrictFake } from '../helpers/strict-fakes.ts';
import { startStrictUpstreams, type StrictUpstreams } from '../helpers/strict-upstreams.ts';
import { CLIENTS_DIR, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==', 'base64');

describe('gemini-cli through the gateway: parallel calls, images, failing streams', () => {
  let workDir = '';
  let mode: 'parallel' | 'text' = 'parallel';
  const pick = (names: string[]) =>
    mode === 'parallel' && names.includes('write_file') ? ['a.txt', 'b.txt'].map((file) => ({ name: 'write_file', input: { file_path: path.join(workDir, file), content: `content of ${file}` } })) : undefined;
  let chat: StrictFake;
  let messages: StrictFake;
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let up: StrictUpstreams;

  beforeAll(async () => {
    await ensureTestClients();
    up = await startStrictUpstreams({
      pick,
      chat: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } },
      responses: { 'gpt-5': { maxOutput: 128000, reasoning: true } },
      messages: { vision: true },
      failing: { messages: true, responses: true },
    });
    ({ gateway: gw, chat, messages, responses } = up as Required<StrictUpstreams>);
  }, 900_000);
  afterAll(() => up?.close());

  /** `gemini -p` on `model` in a fresh work dir and HOME (API-key auth, no telemetry, no updates). */
  function gemini(model: string, prompt: string, before?: (dir: string) => void) {
    workDir = tempDir('gw-gemini-cli-');
    before?.(workDir);
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    return execaNode(GEMINI_JS, ['-m', model, '--yolo', '-p', prompt], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
  }

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['or/gpt-5', () => responses],
  ])('writes two files with two parallel write_file calls on %s', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'parallel';
    const run = await gemini(model, 'Create a.txt and b.txt here.');
    const report = `exit ${run.exitCode}\n${run.stdout}\n${String(run.stderr).slice(-3000)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'a.txt'), 'utf8'), report).toBe('content of a.txt');
    expect(fs.readFileSync(path.join(workDir, 'b.txt'), 'utf8'), report).toBe('content of b.txt');
    expect(String(run.stdout)).toContain('Done: the file is written.');
  }, 180_000);

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
    ['or/gpt-5', () => responses],
  ])('an image named in the prompt (@shot.png) reaches %s', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    mode = 'text';
    const run = await gemini(model, 'Describe @shot.png', (dir) => fs.writeFileSync(path.join(dir, 'shot.png'), PNG));
    const report = `exit ${run.exitCode}\n${run.stdout}\n${String(run.stderr).slice(-3000)}\nrejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.map((r) => `${r.method} ${r.path} ${r.body.slice(0, 300)}`).join('\n')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    // In the answer's request itself (gemini-cli counts the prompt's tokens first, and that count reaches the upstream too).
    const answered = fake.requests.filter((r) => !r.path.includes('count_tokens') && !r.path.includes('input_tokens')).at(-1)!;
    expect(answered.body, report).toContain(PNG.toString('base64'));
  }, 180_000);

  it.each(['fm/flaky', 'fr/flaky'])('a stream that fails part-way on %s: gemini-cli fails with the upstream\'s words', async (model) => {
    mode = 'text';
    const run = await gemini(model, 'Say hi.');
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.timedOut, said).toBe(false);
    expect(said).not.toContain('Model stream ended without a finish reason');
    expect(run.exitCode, said).not.toBe(0);
    expect(said).toContain(UPSTREAM_ERROR);
  }, 180_000);
});
