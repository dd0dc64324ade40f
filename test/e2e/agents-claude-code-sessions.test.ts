/**
 * Claude Code (the real CLI) through the gateway: a session continued in a new process (`claude -c`)
 * after a tool loop on a reasoning model of another format (its converted thinking, signed by the
 * gateway, goes back from the saved session: a Chat reasoning model, a Responses model whose
 * encrypted reasoning must stay paired with its call, Gemini 3's signed calls), and an image in
 * the user's prompt (stream-json input) reaching each model. Strict fakes throughout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==';
describe('Claude Code through the gateway: a continued session, an image in the prompt', () => {
  let workDir = '';
  let home = '';
  const pick = (names: string[]) => (names.includes('Write') ? { name: 'Write', input: { file_path: path.join(workDir, `f${Date.now()}.txt`), content: 'x' } } : undefined);
  let chat: StrictFake, responses: StrictFake, gemini: GeminiFake; let gw: SpawnedGateway;
  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    gemini = await startGeminiFake({ apiKey: 'goog', models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, pick: (names) => { const c = pick(names); return c && [{ name: c.name, args: c.input }]; }, finalText: 'Done: the file is written.' });
    gw = await spawnGateway({ config: { providers: {
      oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini'] },
      or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
      gg: { plugin: 'google', baseURL: gemini.url, apiKey: 'goog', models: ['gemini-3-flash-preview'] } } } });
  }, 900000);
  afterAll(async () => { await gw.stop(); for (const f of [chat, responses, gemini]) await f.close(); });
  const env = (model: string) => { const e = clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }); if (home) { e.HOME = home; e.XDG_CONFIG_HOME = path.join(home, '.config'); } else home = e.HOME; return e; };
  it.each([['oc/o4-mini', () => chat], ['or/gpt-5', () => responses], ['gg/gemini-3-flash-preview', () => gemini]])('claude -c continues a tool loop on %s in a new process', async (model, fakeOf) => {
    const fake = fakeOf(); fake.requests.length = 0; workDir = tempDir('gw-cc-'); home = '';
    const first = await execa(claudeBin(), ['-p', 'Create a file', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], { cwd: workDir, env: env(model), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
    const second = await execa(claudeBin(), ['-c', '-p', 'Create another file', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], { cwd: workDir, env: env(model), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
    const report = `first: exit ${first.exitCode} ${first.stdout.slice(0, 1500)}\nsecond: exit ${second.exitCode} ${second.stdout.slice(0, 1500)} ${second.stderr.slice(-1500)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(first.exitCode, report).toBe(0);
    expect(second.exitCode, report).toBe(0);
    expect(JSON.parse(second.stdout), report).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    // The continued session's request holds the first one's loop (its call, its result) and the new prompt.
    const last = fake.requests.at(-1)!.body;
    expect(last, report).toContain('Create a file');
    expect(last, report).toContain('Create another file');
    expect(last, report).toContain(path.basename(fs.readdirSync(workDir).sort()[0]));
  });
  it.each([['oc/o4-mini', () => chat], ['or/gpt-5', () => responses], ['gg/gemini-3-flash-preview', () => gemini]])('an image in the prompt (stream-json input) reaches %s', async (model, fakeOf) => {
    const fake = fakeOf(); fake.requests.length = 0; workDir = tempDir('gw-cc-'); home = '';
    const msg = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'What is in this image?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }] } });
    const run = await execa(claudeBin(), ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--model', model, '--max-turns', '2'], { cwd: workDir, env: env(model), extendEnv: false, reject: false, timeout: 120000, input: `${msg}\n` });
    const last = fake.requests.at(-1)?.body ?? '';
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(last, report).toContain(PNG_BASE64);
    expect(run.stdout, report).toContain('"is_error":false');
  });
});
