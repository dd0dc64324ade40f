/**
 * Qwen Code (the real CLI, pinned in test/clients; gemini-cli's fork that speaks OpenAI, Anthropic
 * and Gemini) through the gateway: `qwen --yolo <prompt>` non-interactive writes a file with one
 * tool call, configured as its docs say (settings.json `modelProviders`: a model under an auth
 * type, its `baseUrl` at the gateway, the key read from `envKey`) for each of the gateway's
 * faces: `openai` (Chat Completions), `openai-responses`, `anthropic` (Messages) and `gemini`.
 * Each reaches Chat, Messages and Responses upstreams (the strict fakes of four-upstreams). HOME is
 * a fresh temp dir, telemetry, usage statistics and updates are off; nothing leaves 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFourUpstreams, type FourUpstreams } from '../helpers/four-upstreams.ts';
import { spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';
import { QWEN_JS, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';
const FINAL = 'Done: the file is written.';

/**
 * The environment of a `qwen` run with a fresh HOME whose ~/.qwen/settings.json has `model` under
 * `authType` at `baseUrl` (its docs' `modelProviders`), the gateway key read from `envKey`;
 * telemetry, usage statistics and updates off.
 */
function qwenEnv(key: string, authType: string, model: string, baseUrl: string) {
  const env = clientEnv({ GATEWAY_API_KEY: key, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' });
  const settings = {
    modelProviders: { [authType]: [{ id: model, name: `${model} (gateway)`, envKey: 'GATEWAY_API_KEY', baseUrl }] },
    security: { auth: { selectedType: authType } },
    model: { name: model },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
  };
  fs.mkdirSync(path.join(env.HOME, '.qwen'), { recursive: true });
  fs.writeFileSync(path.join(env.HOME, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2));
  return env;
}

describe('Qwen Code through the gateway', () => {
  let workDir = '';
  let up: FourUpstreams;
  let gw: FourUpstreams['gateway'];
  const write = (names: string[]) => (names.includes('write_file') ? { name: 'write_file', input: { file_path: path.join(workDir, 'hello.txt'), content: CONTENT } } : undefined);

  beforeAll(async () => {
    await ensureTestClients();
    up = await startFourUpstreams({ pick: write, toolTurns: 1, reasoningOpenAI: true, gemini3: true });
    gw = up.gateway;
  }, 900_000);
  afterAll(async () => {
    await up?.close();
  });

  /** `qwen --yolo` in a fresh directory, `model` under `authType` in a fresh ~/.qwen/settings.json, asked to write hello.txt. */
  async function qwenWrites(authType: 'openai' | 'openai-responses' | 'anthropic' | 'gemini', model: string) {
    workDir = tempDir('gw-qwen-');
    // The OpenAI SDK takes the base URL with /v1; the Anthropic and Google SDKs add theirs.
    const baseUrl = authType === 'anthropic' || authType === 'gemini' ? gw.url : `${gw.url}/v1`;
    const env = qwenEnv(gw.key!, authType, model, baseUrl);
    return execa(process.execPath, [QWEN_JS, '--yolo', `Write the text "${CONTENT}" to the file hello.txt in ${workDir}.`], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
  }

  it.each([
    ['openai', 'oc/o4-mini', () => up.chat],
    ['openai', 'ant/claude-up', () => up.messages],
    ['openai-responses', 'or/gpt-5', () => up.responses],
    ['anthropic', 'ant/claude-up', () => up.messages],
    ['anthropic', 'or/gpt-5', () => up.responses],
    // Qwen Code's Gemini requests all carry thinkingLevel THINKING_LEVEL_UNSPECIFIED: the Gemini face refused it with a 400.
    ['gemini', 'ant/claude-up', () => up.messages],
    ['gemini', 'oc/o4-mini', () => up.chat],
    // Gemini 3 signs each call round and checks the signature comes back: a Chat and a Messages client carry it for Google.
    ['openai', 'google/gemini-3-pro-preview', () => up.gemini],
    ['anthropic', 'google/gemini-3-pro-preview', () => up.gemini],
  ] as const)('qwen on the %s auth type with %s writes the file', async (authType, model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const run = await qwenWrites(authType, model);
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.length}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8'), report).toBe(CONTENT);
    expect(run.stdout, report).toContain(FINAL);
    // The tool call, then the answer once its result is in, both through the gateway.
    expect(fake.requests.length, report).toBeGreaterThanOrEqual(2);
    if (fake === up.messages && authType !== 'openai') {
      // Qwen Code asks for thinking here: Claude's signed thinking comes back on the turn after the tool call (the strict fake checks the signature).
      const second = fake.requests.at(-1)!.json as { thinking?: unknown; messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }> };
      expect(second.thinking, report).toMatchObject({ type: 'enabled' });
      expect(second.messages.find((m) => m.role === 'assistant')!.content[0], report).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
    }
  }, 180_000);
});

describe('Qwen Code on the offline mock, as the README sets it up', () => {
  it('`qwen --yolo "say hi"` on mock/echo answers and ends: the tools its <system-reminder> lists are not called', async () => {
    await ensureTestClients();
    const dir = tempDir('gw-qwen-mock-');
    const gw = await spawnGateway({ configFile: writeConfig(dir, { providers: { mock: { plugin: 'mock' } } }), dataDir: path.join(dir, 'data') });
    try {
      const env = qwenEnv(gw.key!, 'openai', 'mock/echo', `${gw.url}/v1`);
      // Before, the mock called every tool the reminder names; Qwen's Skill tool started subagents that did the same, without end.
      const run = await execa(process.execPath, [QWEN_JS, '--yolo', 'say hi'], { cwd: dir, env, extendEnv: false, reject: false, timeout: 90_000, stdin: 'ignore' });
      const ledger = fs.readFileSync(path.join(dir, 'data', 'usage.jsonl'), 'utf8').trim().split('\n').filter(Boolean);
      const report = `exit ${run.exitCode} (timed out: ${run.timedOut})\nrequests: ${ledger.length}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}`;
      expect(run.exitCode, report).toBe(0);
      expect(run.stdout, report).toContain('say hi');
      expect(ledger.length, report).toBeLessThanOrEqual(5);
    } finally {
      await gw.stop();
    }
  }, 180_000);
});
