/**
 * A Chat upstream that streams two parallel tool calls interleaved (call 1 begins before call 0's
 * arguments, later chunks carry both, as some OpenAI-compatible servers send them), behind Claude
 * Code and Codex: each call is given out whole with its own arguments and both tools run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';
describe('parallel tool calls streamed interleaved by a Chat upstream', () => {
let workDir = '';
let up: FakeUpstream;
let gw: SpawnedGateway;
beforeAll(async () => {
  await ensureTestClients();
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  up = await startFakeUpstream((r) => {
    const body = r.json as any;
    const answered = (body.messages ?? []).some((m: any) => m.role === 'tool');
    if (answered) return { sse: chatSse([chunk({ role: 'assistant', content: 'Done: the file is written.' }), chunk({}, 'stop')]) };
    const names = JSON.stringify(body.tools ?? []);
    const name = names.includes('"Write"') ? 'Write' : 'exec_command';
    const args = (f: string) => JSON.stringify(name === 'Write' ? { file_path: path.join(workDir, f), content: 'x' } : { cmd: `printf x > '${path.join(workDir, f)}'`, workdir: workDir });
    const a = args('a.txt'), b = args('b.txt');
    const cuts = (s: string) => [s.slice(0, 7), s.slice(7, 20), s.slice(20)];
    const [a1, a2, a3] = cuts(a); const [b1, b2, b3] = cuts(b);
    return { sse: chatSse([
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name, arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name, arguments: b1 } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: a1 } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: b2 } }, { index: 0, function: { arguments: a2 } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: a3 } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: b3 } }] }),
      chunk({}, 'tool_calls'),
    ]) };
  });
  gw = await spawnGateway({ config: { providers: { il: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['m'] } } } });
}, 600000);
afterAll(async () => {
  await gw?.stop();
  await up?.close();
});
it('Claude Code writes both files', async () => {
  workDir = tempDir('gw-il-');
  const run = await execa(claudeBin(), ['-p', 'Create a.txt and b.txt', '--model', 'il/m', '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '3'], { cwd: workDir, env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: 'il/m', CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
  const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 1500)}\nstderr: ${run.stderr.slice(-1000)}`;
  expect(run.exitCode, report).toBe(0);
  expect(fs.readdirSync(workDir).sort(), report).toEqual(['a.txt', 'b.txt']);
  expect(JSON.parse(run.stdout).result, report).toBe('Done: the file is written.');
});
it('Codex runs both commands', async () => {
  workDir = tempDir('gw-il-');
  const codexHome = path.join(tempDir('gw-codex-home-'), '.codex'); fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'config.toml'), ['model = "il/m"', 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
  const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', 'Create a.txt and b.txt'], { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120000, stdin: 'ignore' });
  const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-1000)}\nstderr: ${run.stderr.slice(-2000)}`;
  expect(run.exitCode, report).toBe(0);
  expect(fs.readdirSync(workDir).sort(), report).toEqual(['a.txt', 'b.txt']);
  expect(run.stdout, report).toContain('Done: the file is written.');
});
});
