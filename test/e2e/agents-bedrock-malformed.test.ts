/**
 * A Bedrock Converse model whose turn failed (`stopReason: malformed_tool_use`: a call the model
 * wrote that Bedrock could not read; no content), behind Claude Code and Codex. The IR's 'error'
 * finish reached Claude Code as an empty `end_turn` (claude -p exited 0 with an empty result, the
 * task not done) and Codex as "The response failed."; now both get the upstream's error naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CREDENTIALS = { accessKeyId: 'ASIAFAKEBEDROCK', secretAccessKey: 'fake/secret+key', sessionToken: 'FwoGZXIvYXdzEFAKETOKEN' };
const LLAMA = 'bedrock/meta.llama3-3-70b-instruct-v1:0';

describe('a Bedrock Converse turn whose tool call could not be read, behind the coding agents', () => {
  let fake: FakeBedrock;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: [CREDENTIALS] });
    gw = await spawnGateway({ config: { providers: { bedrock: { plugin: 'bedrock', baseURL: fake.url, region: 'us-east-1', ...CREDENTIALS, models: [LLAMA.slice(8)] } } } });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });

  it('claude -p: an API error naming malformed_tool_use, exit not 0', async () => {
    fake.faults.stopReasonNext = { stopReason: 'malformed_tool_use', times: 20 };
    const run = await execa(claudeBin(), ['-p', 'Write a file', '--model', LLAMA, '--output-format', 'json', '--max-turns', '3'], { cwd: tempDir(), env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: LLAMA, CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-1000)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(JSON.parse(run.stdout).result, report).toContain('malformed_tool_use');
  });

  it('codex exec: the response failed naming malformed_tool_use', async () => {
    fake.faults.stopReasonNext = { stopReason: 'malformed_tool_use', times: 20 };
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [`model = "${LLAMA}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--color', 'never', 'Write a file'], { cwd: tempDir(), env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-1000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(run.stderr, report).toContain('malformed_tool_use');
  });
});
