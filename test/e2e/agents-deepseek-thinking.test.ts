/**
 * DeepSeek's thinking mode behind the real coding agents (Claude Code, Codex, gemini-cli), each
 * in its own format: DeepSeek answers a tool call with `reasoning_content` and refuses the next
 * request of the loop unless every assistant turn with tool calls carries that reasoning back
 * (400 "Missing `reasoning_content` field…"). The agents get it in their own shapes (a thinking
 * block, a reasoning item, gemini-cli's signed call) and the gateway must bring it back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, CODEX_JS, claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;
const MODEL = 'deepseek-v4-pro';
const THOUGHT = 'The user wants a file; write it.';
const GEMINI_JS = path.join(CLIENTS_DIR, 'node_modules/@google/gemini-cli/bundle/gemini.js');

describe('DeepSeek thinking mode behind Claude Code, Codex and gemini-cli', () => {
  let workDir = '';
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  const rejections: string[] = [];

  /** DeepSeek: turn 1 a call of the client's file tool with reasoning, then the final text; a loop without the reasoning back is a 400. */
  function deepseek(body: Json): FakeReply {
    const messages: Json[] = body.messages ?? [];
    const missing = messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && typeof m.reasoning_content !== 'string');
    if (missing >= 0) {
      const message = `Missing \`reasoning_content\` field in the assistant message at message index ${missing}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
      rejections.push(message);
      return { status: 400, json: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } };
    }
    const names: string[] = (body.tools ?? []).map((tool: Json) => tool.function?.name);
    const target = path.join(workDir, 'hello.txt');
    const args = names.includes('Write')
      ? { name: 'Write', input: { file_path: target, content: 'hi' } }
      : names.includes('write_file')
        ? { name: 'write_file', input: { file_path: target, content: 'hi' } }
        : { name: 'exec_command', input: { cmd: `printf hi > '${target}'`, workdir: workDir } };
    const answered = messages.some((m) => m.role === 'tool');
    const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60, completion_tokens_details: { reasoning_tokens: 5 } };
    const head = { id: `ds-${messages.length}`, created: 1_800_000_000, model: MODEL };
    const call = { id: 'call_00_write', type: 'function', function: { name: args.name, arguments: JSON.stringify(args.input) } };
    const message: Json = answered ? { role: 'assistant', content: 'Done: the file is written.', reasoning_content: 'Now answer.' } : { role: 'assistant', content: '', reasoning_content: THOUGHT, tool_calls: [call] };
    const finish = answered ? 'stop' : 'tool_calls';
    if (!body.stream) return { json: { ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage } };
    const chunk = (delta: Json, finishReason: string | null = null) => ({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
    const chunks: Json[] = [chunk({ role: 'assistant', content: null, reasoning_content: message.reasoning_content })];
    if (answered) chunks.push(chunk({ content: message.content }));
    else chunks.push(chunk({ tool_calls: [{ index: 0, ...call }] }));
    chunks.push(chunk({}, finish), { ...head, object: 'chat.completion.chunk', choices: [], usage });
    return { sse: chatSse(chunks) };
  }

  beforeAll(async () => {
    await ensureTestClients();
    upstream = await startFakeUpstream((request) => deepseek(request.json as Json));
    gw = await spawnGateway({ config: { providers: { ds: { plugin: 'openai', baseURL: upstream.url, apiKey: 'sk-ds', formats: ['chat'], models: [MODEL] } } } });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const check = (label: string, run: { exitCode?: number; stdout: unknown; stderr: unknown }) => {
    const report = `${label} exit ${run.exitCode}\nstdout: ${String(run.stdout).slice(-2000)}\nstderr: ${String(run.stderr).slice(-2000)}\nrejections: ${rejections.join(' | ')}`;
    expect(rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8'), report).toBe('hi');
    const back = (upstream.requests.at(-1)!.json as Json).messages.find((m: Json) => m.role === 'assistant');
    expect(back.reasoning_content, report).toBe(THOUGHT);
  };
  const fresh = () => {
    workDir = tempDir('gw-ds-');
    rejections.length = 0;
    upstream.requests.length = 0;
  };

  it('Claude Code', async () => {
    fresh();
    const model = `ds/${MODEL}`;
    const run = await execa(claudeBin(), ['-p', 'Create hello.txt', '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_AUTH_TOKEN: gw.key!, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, CLAUDE_CODE_MAX_RETRIES: '0' }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    check('claude', run);
  });

  it('Codex', async () => {
    fresh();
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [`model = "ds/${MODEL}"`, 'model_provider = "gateway"', 'model_reasoning_effort = "high"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'));
    const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', 'Create hello.txt'], { cwd: workDir, env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gw.key! }), extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
    check('codex', run);
  });

  it('gemini-cli', async () => {
    fresh();
    const env = clientEnv({ GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.key!, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    fs.mkdirSync(path.join(env.HOME, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(env.HOME, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
    const run = await execaNode(GEMINI_JS, ['-m', `ds/${MODEL}`, '--yolo', '-p', 'Create hello.txt'], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000 });
    check('gemini', run);
  }, 180_000);
});
