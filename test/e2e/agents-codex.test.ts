/**
 * Codex CLI (the real binary, pinned in test/clients) through the gateway (issue 24): `codex exec`
 * with a model provider pointing at the gateway (`wire_api = "responses"`), default features and
 * `web_search` on, completes a task that writes a file, with the model served by a Responses
 * fake (passthrough), an Anthropic fake and a Chat fake (conversion: its `namespace` groups
 * flattened, `web_search` dropped and named). The fakes are strict: turn 1 runs a shell command
 * that writes the file, the final text comes once the tool result arrives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { startCompactionlessFake, startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { CODEX_JS, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';

/** Codex's shell tools, newest first, and the arguments that write the file with each. */
function shellCall(names: string[], dir: string) {
  const script = `printf '%s' '${CONTENT}' > '${path.join(dir, 'hello.txt')}'`;
  const byName: Record<string, Record<string, unknown>> = {
    exec_command: { cmd: script, workdir: dir },
    shell_command: { command: script, workdir: dir },
    shell: { command: ['bash', '-lc', script], workdir: dir },
  };
  const name = Object.keys(byName).find((candidate) => names.includes(candidate));
  return name ? { name, input: byName[name] } : undefined;
}

describe('Codex through the gateway', () => {
  let workDir = '';
  // A conversation compacted by the gateway (its summary in a user turn) is past the tool call: the model answers.
  const pick = (names: string[], body: Record<string, unknown>) => (JSON.stringify(body).includes('Summary of the earlier conversation') ? undefined : shellCall(names, workDir));
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  /** Claude over two tool rounds: its signed thinking must come back on the second and third requests (the fake checks the signatures it issued). */
  let claudeTwice: StrictFake;
  /** A Responses server without OpenAI's compaction (vLLM-like). */
  let vllm: StrictFake;
  /** Gemini 3 (every call round signed, signatures checked) and 2.5 (thinks): Codex's reasoning items must carry Google's thought signatures back. */
  let gemini: GeminiFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick });
    claudeTwice = await startStrictFake({ format: 'messages', models: { 'claude-twice': { maxOutput: 64000, reasoning: true } }, pick, toolTurns: 2 });
    vllm = await startCompactionlessFake({ models: { qwen: { maxOutput: 32000, reasoning: true } }, pick });
    gemini = await startGeminiFake({
      apiKey: 'goog',
      models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true }, 'gemini-2.5-flash': { thinking: true, gemini3: false } },
      pick: (names, body) => {
        const call = pick(names, body);
        return call && [{ name: call.name, args: call.input }];
      },
      toolTurns: 2,
      finalText: 'Done: the file is written.',
    });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          ant2: { plugin: 'anthropic', baseURL: claudeTwice.url, apiKey: 'x', models: [{ id: 'claude-twice', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          vl: { plugin: 'openai', baseURL: `${vllm.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['qwen'] },
          gg: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-3-flash-preview', 'gemini-2.5-flash'] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, claudeTwice, vllm, gemini]) await fake?.close();
  });

  /** `codex exec` in a fresh directory with its own CODEX_HOME holding `config` (config.toml lines), asked to write hello.txt. */
  async function codexWrites(config: string[], env: Record<string, string>) {
    workDir = tempDir('gw-codex-');
    const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [...config, ''].join('\n'));
    return execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', `Create hello.txt in this directory containing: ${CONTENT}`], {
      cwd: workDir,
      env: clientEnv({ CODEX_HOME: codexHome, ...env }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
  }

  it.each([
    ['or/gpt-5', () => responses],
    ['ant/claude-up', () => messages],
    ['oc/gpt-4o-mini', () => chat],
    ['ant2/claude-twice', () => claudeTwice],
    ['gg/gemini-3-flash-preview', () => gemini],
    ['gg/gemini-2.5-flash', () => gemini],
  ])('codex exec with %s writes the file', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const run = await codexWrites(
      [
        `model = "${model}"`,
        'model_provider = "gateway"',
        'web_search = "live"',
        '[model_providers.gateway]',
        'name = "gateway"',
        `base_url = "${gw.url}/v1"`,
        'env_key = "GATEWAY_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
      ],
      { GATEWAY_API_KEY: gw.key! },
    );
    const first = fake.requests[0]?.json as Record<string, any> | undefined;
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.length}\ntools: ${JSON.stringify(first?.tools)?.slice(0, 3000)}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8'), report).toBe(CONTENT);
    expect(run.stdout, report).toContain('Done: the file is written.');
    if (fake === claudeTwice) {
      // Codex sends Claude's thinking back as the reasoning items it got (signed, in encrypted_content): thinking stays on every round.
      const bodies = fake.requests.map((request) => request.json as Record<string, any>);
      expect(bodies.length, report).toBe(3);
      for (const body of bodies.slice(1)) {
        expect(body.thinking, report).toMatchObject({ type: 'enabled' });
        for (const message of body.messages.filter((m: Record<string, any>) => m.role === 'assistant')) expect(message.content[0], report).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
      }
    }
    // What this route is about: Codex's default tools (a namespace group, web_search) as each upstream got them.
    const tools: Array<Record<string, any>> = first?.tools ?? [];
    const names = tools.flatMap((tool) => tool.functionDeclarations?.map((declaration: Record<string, any>) => declaration.name) ?? [tool.name ?? tool.function?.name ?? tool.type]);
    if (model === 'or/gpt-5') expect(tools.map((tool) => tool.type)).toEqual(expect.arrayContaining(['namespace', 'web_search']));
    else {
      expect(names).toContain('multi_agent_v1__spawn_agent');
      // Claude runs web_search as its own server tool; a Chat-only model cannot and gets none.
      if (model.startsWith('ant')) expect(tools).toContainEqual(expect.objectContaining({ type: 'web_search_20250305', name: 'web_search' }));
      else expect(names).not.toContain('web_search');
    }
  });

  // Codex on its built-in OpenAI provider (`openai_base_url` at the gateway) compacts remotely: a
  // streamed /v1/responses whose input ends with `compaction_trigger`, read as exactly one
  // `compaction` output item (remote compaction v2), and it has no local fallback. On a converted
  // route the gateway has the model write the summary and answers with that item; so it does on a
  // Responses server that refuses the trigger (a passthrough that would otherwise fail the compaction).
  it.each([
    ['ant/claude-up', () => messages],
    ['vl/qwen', () => vllm],
  ])('compacts its context through the gateway on %s (openai_base_url, remote compaction)', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const run = await codexWrites([`model = "${model}"`, `openai_base_url = "${gw.url}/v1"`, 'model_auto_compact_token_limit = 100'], { CODEX_API_KEY: gw.key! });
    const bodies = fake.requests.map((request) => JSON.stringify(request.json));
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.length}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(run.stderr, report).not.toContain('Error running remote compact task');
    expect(run.stderr, report).toContain('context compacted');
    // Its first try is the Responses WebSocket (GET /v1/responses, Upgrade: websocket): the gateway's 426 sends it
    // to HTTPS at once. A 405 had it reconnect five times (~7 s) before every session's first turn.
    expect(run.stderr, report).toContain('failed to connect to Responses WebSocket');
    expect(run.stderr, report).not.toMatch(/Reconnecting\.\.\. \d\/\d/);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8'), report).toBe(CONTENT);
    // The summary was asked for, then the conversation went on from it.
    const asked = bodies.findIndex((body) => body.includes('handoff summary'));
    expect(asked, report).toBeGreaterThan(0);
    expect(bodies.slice(asked + 1).some((body) => body.includes('Summary of the earlier conversation')), report).toBe(true);
  }, 150_000);
});
