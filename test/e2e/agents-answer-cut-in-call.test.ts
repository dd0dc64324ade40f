/**
 * An answer the upstream ended part-way through a tool call (its output cap: a Chat upstream's
 * `finish_reason: "length"` inside the call's arguments), and one its safety filter stopped
 * (Gemini's `SAFETY`), on routes in another format than the client's. Each coding agent must
 * report it and run no tool from half its arguments. Gemini never sends part of a call, so a
 * gemini-cli client got the cut call with `{}` as its arguments: it ran write_file with them
 * ("params must have required property 'file_path'"), again and again, and exited 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';
const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');
describe('coding agents on an answer cut inside a tool call, or stopped by a safety filter', () => {
  let workDir = ''; let lengthChat: FakeUpstream, safety: FakeUpstream; let gw: SpawnedGateway;
  beforeAll(async () => {
    await ensureTestClients();
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    lengthChat = await startFakeUpstream((r) => {
      const names = JSON.stringify(r.json);
      const name = names.includes('"Write"') ? 'Write' : names.includes('write_file') ? 'write_file' : 'exec_command';
      const partial = JSON.stringify({ file_path: path.join(workDir, 'bad.txt'), content: 'x' }).slice(0, 30);
      if (!(r.json as any)?.stream) return { json: { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: partial } }] }, finish_reason: 'length' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } } };
      return { sse: chatSse([chunk({ role: 'assistant', content: null }), chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: partial } }] }), chunk({}, 'length'), { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }]) };
    });
    safety = await startFakeUpstream((r) => r.path.includes('stream') ? { sse: [`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'I can' }] }, index: 0 }] })}\r\n\r\n`, `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } })}\r\n\r\n`] } : { json: { candidates: [{ content: { role: 'model', parts: [{ text: 'I can' }] }, finishReason: 'SAFETY', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } } });
    gw = await spawnGateway({ config: { providers: {
      len: { plugin: 'openai', baseURL: `${lengthChat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['m'] },
      saf: { plugin: 'google', baseURL: safety.url, apiKey: 'x', models: ['gemini-2.5-flash'] } } } });
  }, 900000);
  afterAll(async () => {
    await gw?.stop();
    await lengthChat?.close();
    await safety?.close();
  });
  it.each(['len/m', 'saf/gemini-2.5-flash'])('Claude Code on %s: reports it, runs nothing', async (model) => {
    workDir = tempDir('gw-st-');
    const run = await execa(claudeBin(), ['-p', 'Write bad.txt', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '3'], { cwd: workDir, env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-1000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(fs.readdirSync(workDir), report).toEqual([]);
    const result = JSON.parse(run.stdout);
    if (model === 'len/m') expect(result.stop_reason, report).toBe('max_tokens');
    else expect(result.result, report).toContain('safeguards flagged this message');
  });
  it.each(['len/m', 'saf/gemini-2.5-flash'])('Codex on %s: reports it, runs nothing', async (model) => {
    workDir = tempDir('gw-st-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex'); fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', 'Write bad.txt'], { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-1000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(fs.readdirSync(workDir), report).toEqual([]);
    expect(run.stderr, report).toContain(`Incomplete response returned, reason: ${model === 'len/m' ? 'max_output_tokens' : 'content_filter'}`);
  });
  it.each(['len/m'])('gemini-cli on %s: the cut call is left out, the cap reported', async (model) => {
    workDir = tempDir('gw-st-');
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', model, '--yolo', '-p', 'Write bad.txt'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120000 });
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.timedOut, said).toBe(false);
    expect(said).not.toContain('Error executing tool write_file');
    expect(said).toContain('Model response was truncated because it exceeded the token limit');
    expect(fs.readdirSync(workDir), said).toEqual([]);
  }, 150000);
});
