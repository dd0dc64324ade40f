/**
 * An upstream stream that fails inside a tool call (its arguments cut part-way, then the
 * upstream's error record), on a route in another format than the client's: Claude Code on Chat
 * and Responses upstreams, Codex on Chat and Messages ones, gemini-cli on Chat, Messages and
 * Responses ones. Each client must stop with the upstream's words and run no tool (no file
 * written from half its arguments), not hang nor take the cut call for a whole one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const UPSTREAM_ERROR = 'The server had an error while processing your request.';
const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

describe('coding agents through the gateway: an upstream stream that fails inside a tool call', () => {
  let workDir = '';
  let chat: FakeUpstream, messages: FakeUpstream, responses: FakeUpstream;
  let gw: SpawnedGateway;
  beforeAll(async () => {
    await ensureTestClients();
    const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flaky', choices: [{ index: 0, delta, finish_reason: null }] });
    const partial = () => JSON.stringify({ file_path: path.join(workDir, 'bad.txt'), content: 'x' }).slice(0, 30);
    const whole = (request: { json?: Record<string, unknown> }, json: unknown) => (request.json?.stream === true ? undefined : { status: 500, json });
    chat = await startFakeUpstream((r) => whole(r, { error: { message: UPSTREAM_ERROR, type: 'server_error', param: null, code: null } }) ?? ({ sse: [...chatSse([chunk({ role: 'assistant', content: null }), chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: r.body.includes('"Write"') ? 'Write' : r.body.includes('write_file') ? 'write_file' : 'exec_command', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: partial() } }] })], false), `data: {"error":{"message":"${UPSTREAM_ERROR}","type":"server_error","code":null}}\n\n`] }));
    messages = await startFakeUpstream((r) => whole(r, { type: 'error', error: { type: 'api_error', message: UPSTREAM_ERROR } }) ?? ({ sse: namedSse([
      { type: 'message_start', message: { id: 'msg_f', type: 'message', role: 'assistant', model: 'flaky', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: r.body.includes('"Write"') ? 'Write' : r.body.includes('write_file') ? 'write_file' : 'exec_command', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: partial() } },
      { type: 'error', error: { type: 'api_error', message: UPSTREAM_ERROR } },
    ]) }));
    const response = { id: 'resp_f', object: 'response', created_at: 1, status: 'in_progress', model: 'flaky', output: [] };
    responses = await startFakeUpstream((r) => whole(r, { error: { message: UPSTREAM_ERROR, type: 'server_error', param: null, code: null } }) ?? ({ sse: namedSse([
      { type: 'response.created', sequence_number: 0, response },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'fc_1', type: 'function_call', status: 'in_progress', call_id: 'call_1', name: r.body.includes('"Write"') ? 'Write' : 'write_file', arguments: '' } },
      { type: 'response.function_call_arguments.delta', sequence_number: 2, output_index: 0, item_id: 'fc_1', delta: partial() },
      { type: 'response.failed', sequence_number: 3, response: { ...response, status: 'failed', error: { code: 'server_error', message: UPSTREAM_ERROR } } },
    ]) }));
    gw = await spawnGateway({ config: { providers: {
      fc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['flaky'] },
      fm: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: ['flaky'] },
      fr: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['flaky'] },
    } } });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages, responses]) await fake?.close();
  });

  it.each(['fc/flaky', 'fr/flaky'])('Claude Code on %s: an error, no tool run', async (model) => {
    workDir = tempDir('gw-x-');
    const run = await execa(claudeBin(), ['-p', 'Write bad.txt', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], { cwd: workDir, env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(run.stdout, report).toContain(UPSTREAM_ERROR);
    expect(fs.readdirSync(workDir), report).toEqual([]);
  });
  it.each(['fc/flaky', 'fm/flaky'])('Codex on %s: an error, no tool run', async (model) => {
    workDir = tempDir('gw-x-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', 'Write bad.txt'], { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(run.stderr, report).toContain(UPSTREAM_ERROR);
    expect(fs.readdirSync(workDir), report).toEqual([]);
  });
  it.each(['fc/flaky', 'fm/flaky', 'fr/flaky'])('gemini-cli on %s: an error, no tool run', async (model) => {
    workDir = tempDir('gw-x-');
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', model, '--yolo', '-p', 'Write bad.txt'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.timedOut, said).toBe(false);
    expect(run.exitCode, said).not.toBe(0);
    expect(said).toContain(UPSTREAM_ERROR);
    expect(fs.readdirSync(workDir), said).toEqual([]);
  }, 150_000);
});
