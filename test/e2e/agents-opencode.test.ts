/**
 * opencode (the real binary, pinned in test/clients) through the gateway: `opencode run`
 * non-interactive writes a file with one tool call, configured as its docs say for each of the
 * gateway's faces: a custom provider on `@ai-sdk/openai-compatible` (Chat Completions), the
 * built-in `anthropic` provider with its baseURL at the gateway (Messages), the built-in
 * `openai` provider likewise (Responses) and the built-in `google` provider (Gemini). The faces
 * reach Chat, Messages, Responses and Gemini upstreams (the strict fakes of four-upstreams, Gemini
 * 3 rules on); with `--variant high` the reasoning models think, and their signed thinking,
 * encrypted reasoning or thought signatures go round the tool call. HOME is a fresh temp dir, the
 * models.dev fetch, updates, sharing and default plugins are off; nothing leaves 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFourUpstreams, type FourUpstreams } from '../helpers/four-upstreams.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';
import { clientEnv, ensureTestClients, opencodeBin } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';
const FINAL = 'Done: the file is written.';

/** The models as opencode is told of them (its config's `models` entry), the same under each provider. */
const MODELS = {
  'oc/o4-mini': { name: 'o4-mini', tool_call: true, limit: { context: 200000, output: 100000 } },
  'ant/claude-up': { name: 'claude-up', reasoning: true, tool_call: true, limit: { context: 200000, output: 64000 } },
  'or/gpt-5': { name: 'gpt-5', reasoning: true, tool_call: true, limit: { context: 400000, output: 128000 } },
  'google/gemini-3-pro-preview': { name: 'gemini-3-pro-preview', reasoning: true, tool_call: true, limit: { context: 1048576, output: 65536 } },
};

describe('opencode through the gateway', () => {
  let workDir = '';
  let up: FourUpstreams;
  let gw: FourUpstreams['gateway'];
  /** opencode's file tools: `write` for most models, `apply_patch` (and no `write`) for GPT-5. */
  const write = (names: string[]) => {
    const file = path.join(workDir, 'hello.txt');
    if (names.includes('write')) return { name: 'write', input: { filePath: file, content: CONTENT } };
    if (names.includes('apply_patch')) return { name: 'apply_patch', input: { patchText: `*** Begin Patch\n*** Add File: ${file}\n+${CONTENT}\n*** End Patch` } };
    return undefined;
  };

  beforeAll(async () => {
    await ensureTestClients();
    up = await startFourUpstreams({ pick: write, toolTurns: 1, reasoningOpenAI: true, gemini3: true });
    gw = up.gateway;
  }, 900_000);
  afterAll(async () => {
    await up?.close();
  });

  /** `opencode run` in a fresh directory whose opencode.json points `provider` at the gateway, asked to write hello.txt. */
  async function opencodeWrites(provider: 'gateway' | 'anthropic' | 'openai' | 'google', model: string, args: string[] = []) {
    workDir = tempDir('gw-opencode-');
    const providers = {
      // A custom provider: opencode's docs' way to any OpenAI-compatible endpoint (Chat Completions).
      gateway: { npm: '@ai-sdk/openai-compatible', name: 'Gateway', options: { baseURL: `${gw.url}/v1`, apiKey: '{env:GATEWAY_API_KEY}' }, models: MODELS },
      // The built-in providers with their baseURL at the gateway: Messages, Responses and Gemini.
      anthropic: { options: { baseURL: `${gw.url}/v1`, apiKey: '{env:GATEWAY_API_KEY}' }, models: MODELS },
      openai: { options: { baseURL: `${gw.url}/v1`, apiKey: '{env:GATEWAY_API_KEY}' }, models: MODELS },
      google: { options: { baseURL: `${gw.url}/v1beta`, apiKey: '{env:GATEWAY_API_KEY}' }, models: MODELS },
    };
    // small_model: the session title's model (the built-in providers' default, a Haiku or a nano, is not on this gateway).
    const config = { $schema: 'https://opencode.ai/config.json', autoupdate: false, share: 'disabled', model: `${provider}/${model}`, small_model: `${provider}/${model}`, provider: { [provider]: providers[provider] } };
    fs.writeFileSync(path.join(workDir, 'opencode.json'), JSON.stringify(config, null, 2));
    const env = clientEnv({
      GATEWAY_API_KEY: gw.key!,
      OPENCODE_DISABLE_MODELS_FETCH: 'true',
      OPENCODE_DISABLE_AUTOUPDATE: 'true',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
      OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
      OPENCODE_DISABLE_SHARE: 'true',
    });
    return execa(opencodeBin(), ['run', '--print-logs', ...args, `Write the text "${CONTENT}" to the file hello.txt in ${workDir}.`], { cwd: workDir, env, extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore' });
  }

  it.each([
    ['gateway', 'oc/o4-mini', () => up.chat, []],
    ['gateway', 'ant/claude-up', () => up.messages, []],
    ['anthropic', 'ant/claude-up', () => up.messages, ['--variant', 'high']],
    ['anthropic', 'or/gpt-5', () => up.responses, ['--variant', 'high']],
    ['openai', 'or/gpt-5', () => up.responses, ['--variant', 'high']],
    ['openai', 'ant/claude-up', () => up.messages, ['--variant', 'high']],
    ['google', 'google/gemini-3-pro-preview', () => up.gemini, ['--variant', 'high']],
    ['google', 'ant/claude-up', () => up.messages, ['--variant', 'high']],
  ] as const)('opencode run on the %s provider with %s writes the file', async (provider, model, fakeOf, args) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const run = await opencodeWrites(provider, model, [...args]);
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-4000)}\nrejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.length}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    // apply_patch ends the file's last line with a newline; write keeps the content as given.
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8').replace(/\n$/, ''), report).toBe(CONTENT);
    expect(run.stdout, report).toContain(FINAL);
    // Every call of opencode's went through: none answered with an error (a title included).
    expect(run.stderr, report).not.toContain('level=ERROR');
    // The tool call, then the answer once its result is in (and the title, on the same model).
    const asked = fake.requests.map((request) => request.json as Record<string, any>);
    const toolTurns = asked.filter((body) => Array.isArray(body.tools) && body.tools.length > 0);
    expect(toolTurns.length, report).toBeGreaterThanOrEqual(2);
    if (args.length > 0 && fake === up.messages) {
      // The thinking asked for, and Claude's signed thinking back on the turn after the tool call (the strict fake checks the signature).
      const second = toolTurns.at(-1)!;
      expect(second.thinking, report).toMatchObject({ type: expect.stringMatching(/^(enabled|adaptive)$/) });
      expect(second.messages.find((m: { role: string }) => m.role === 'assistant').content[0], report).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
    }
    if (args.length > 0 && fake === up.responses) {
      // Reasoning asked for, and its encrypted content back on the turn after the tool call.
      expect(toolTurns[0].reasoning, report).toMatchObject({ effort: 'high' });
      expect(toolTurns.at(-1)!.input, report).toContainEqual(expect.objectContaining({ type: 'reasoning', encrypted_content: expect.stringMatching(/^enc_/) }));
    }
    if (fake === up.gemini) {
      // Thoughts asked for, and Gemini 3's thought signature back with its call (the fake refuses a call of the current turn without it).
      expect(toolTurns[0].generationConfig?.thinkingConfig, report).toMatchObject({ includeThoughts: true });
      const modelTurn = toolTurns.at(-1)!.contents.find((content: { role: string }) => content.role === 'model');
      expect(modelTurn.parts.find((part: Record<string, unknown>) => part.functionCall), report).toMatchObject({ thoughtSignature: expect.any(String) });
    }
  }, 180_000);
});
