/**
 * A Gemini turn whose function calling failed (finishReason MALFORMED_FUNCTION_CALL, no call in
 * it, Gemini's finishMessage saying what it tried), behind Claude Code and Codex. It reached
 * Claude Code as an empty `end_turn`: claude -p exited 0 with an empty result, as if the task
 * were done; Codex got a response.failed saying only "The response failed.". Now both get the
 * upstream's error with Gemini's words.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';
describe('a Gemini turn whose function call failed, behind the coding agents', () => {
let g: FakeUpstream; let gw: SpawnedGateway;
beforeAll(async () => {
  await ensureTestClients();
  const rec = { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(default_api.write_file(...', index: 0 }], usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 }, modelVersion: 'gemini-2.5-flash' };
  g = await startFakeUpstream((r) => (r.path.includes('stream') ? { sse: [`data: ${JSON.stringify(rec)}\r\n\r\n`] } : { json: rec }));
  gw = await spawnGateway({ config: { providers: { gg: { plugin: 'google', baseURL: g.url, apiKey: 'x', models: ['gemini-2.5-flash'] } } } });
}, 600000);
afterAll(async () => {
  await gw?.stop();
  await g?.close();
});
it('claude -p on it: an API error with Gemini\'s words, exit not 0', async () => {
  const run = await execa(claudeBin(), ['-p', 'Write a file', '--model', 'gg/gemini-2.5-flash', '--output-format', 'json', '--max-turns', '3'], { cwd: tempDir(), env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: 'gg/gemini-2.5-flash', CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
  const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-1000)}`;
  expect(run.exitCode, report).not.toBe(0);
  expect(JSON.parse(run.stdout).result, report).toContain('MALFORMED_FUNCTION_CALL: Malformed function call: print(default_api.write_file(');
});
it('codex exec on it: the response failed with Gemini\'s words', async () => {
  const codexHome = path.join(tempDir('gw-codex-home-'), '.codex'); fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'config.toml'), ['model = "gg/gemini-2.5-flash"', 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
  const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--color', 'never', 'Write a file'], { cwd: tempDir(), env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
  const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-1000)}\nstderr: ${run.stderr.slice(-2000)}`;
  expect(run.exitCode, report).not.toBe(0);
  expect(run.stderr, report).toContain('MALFORMED_FUNCTION_CALL: Malformed function call: print(default_api.write_file(');
});
});
