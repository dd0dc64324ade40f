/**
 * A PDF reaching a model of another format from the coding agents: Claude Code's Read of a PDF
 * (a document block inside the tool result) on Chat and Responses upstreams, and gemini-cli's
 * `@paper.pdf` (inline data in the prompt) on Chat, Messages and Responses upstreams. Strict fakes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { CLIENTS_DIR, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';
const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 44>>stream\nBT /F1 24 Tf 20 100 Td (Hello PDF) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
describe('a PDF from the coding agents on converted routes', () => {
let workDir = '';
let chat: StrictFake, responses: StrictFake, messages: StrictFake; let gw: SpawnedGateway;
const pick = (names: string[], body: any) => (names.includes('Read') && !JSON.stringify(body).includes('tool_result') && !JSON.stringify(body).includes('"tool"') && !JSON.stringify(body).includes('function_call_output') ? { name: 'Read', input: { file_path: path.join(workDir, 'paper.pdf') } } : undefined);
beforeAll(async () => {
  await ensureTestClients();
  chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
  responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false } }, pick });
  messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick });
  gw = await spawnGateway({ config: { providers: {
    oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
    or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
    ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking', 'vision', 'pdf'] }] } } } });
}, 600000);
afterAll(async () => { await gw.stop(); for (const f of [chat, responses, messages]) await f.close(); });
const b64 = PDF.toString('base64');
it.each([['oc/gpt-4o-mini', () => chat], ['or/gpt-4.1', () => responses]])('Claude Code reads a PDF on %s: the document reaches the model', async (model, fakeOf) => {
  const fake = fakeOf(); fake.requests.length = 0; workDir = tempDir('gw-pdf-'); fs.writeFileSync(path.join(workDir, 'paper.pdf'), PDF);
  const run = await execa(claudeBin(), ['-p', 'Look at paper.pdf', '--model', model, '--allowedTools', 'Read', '--output-format', 'json', '--max-turns', '3'], { cwd: workDir, env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
  const last = fake.requests.at(-1)?.body ?? '';
  const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 1500)}\nrejections: ${fake.rejections.join(' | ')}`;
  expect(fake.rejections, report).toEqual([]);
  expect(run.exitCode, report).toBe(0);
  expect(last, report).toContain(b64);
});
it.each([['oc/gpt-4o-mini', () => chat], ['ant/claude-up', () => messages], ['or/gpt-4.1', () => responses]])('gemini-cli with @paper.pdf on %s: the document reaches the model', async (model, fakeOf) => {
  const fake = fakeOf(); fake.requests.length = 0; workDir = tempDir('gw-pdf-'); fs.writeFileSync(path.join(workDir, 'paper.pdf'), PDF);
  const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
  fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
  const run = await execaNode(GEMINI_JS, ['-m', model, '--yolo', '-p', 'Summarise @paper.pdf'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120000 });
  const answered = fake.requests.filter((r) => !r.path.includes('count')).at(-1)?.body ?? '';
  const report = `exit ${run.exitCode}\n${run.stdout}\n${String(run.stderr).slice(-1500)}\nrejections: ${fake.rejections.join(' | ')}`;
  expect(fake.rejections, report).toEqual([]);
  expect(run.exitCode, report).toBe(0);
  expect(answered, report).toContain(b64);
}, 150000);
});
