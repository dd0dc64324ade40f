/**
 * Claude Code (the real CLI, pinned in test/clients) pointed at the gateway in its cloud modes, as
 * its LLM-gateway docs tell users: Vertex (`CLAUDE_CODE_USE_VERTEX`, `ANTHROPIC_VERTEX_BASE_URL`,
 * `CLAUDE_CODE_SKIP_VERTEX_AUTH`; the key in `ANTHROPIC_CUSTOM_HEADERS`) and Bedrock
 * (`CLAUDE_CODE_USE_BEDROCK`, `ANTHROPIC_BEDROCK_BASE_URL`, `CLAUDE_CODE_SKIP_BEDROCK_AUTH`; the key in
 * `AWS_BEARER_TOKEN_BEDROCK`). `claude -p` with the Write tool writes a file through a Claude model named
 * by the cloud's id (served by an Anthropic fake: passthrough, the cloud's `anthropic_version` never
 * reaches it) and through a Chat model (conversion; Bedrock's stream is AWS's binary event-stream;
 * Vertex's base URL at the gateway's root, without `/v1`).
 * The fakes are strict (test/helpers/strict-fakes.ts): any request the real API would refuse fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';

describe('Claude Code through the gateway in its Vertex and Bedrock modes', () => {
  let workDir = '';
  const pick = (names: string[]) => (names.includes('Write') ? { name: 'Write', input: { file_path: path.join(workDir, 'hello.txt'), content: CONTENT } } : undefined);
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } }, pick });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages]) await fake?.close();
  });

  const MODES = {
    vertex: (key: string): Record<string, string> => ({
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: `${gw.url}/v1`,
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'my-project',
      CLOUD_ML_REGION: 'us-east5',
      ANTHROPIC_CUSTOM_HEADERS: `Authorization: Bearer ${key}`,
    }),
    // The base URL at the gateway's root: Claude Code's Vertex client then asks /projects/… without /v1.
    'vertex-root': (key: string): Record<string, string> => ({ ...MODES.vertex(key), ANTHROPIC_VERTEX_BASE_URL: gw.url }),
    bedrock: (key: string): Record<string, string> => ({
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: gw.url,
      CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1',
      AWS_REGION: 'us-east-1',
      AWS_BEARER_TOKEN_BEDROCK: key,
    }),
  };

  /** `claude -p` in `workDir` on `model` in a cloud mode, the Write tool allowed, answering in JSON. */
  const claude = (mode: keyof typeof MODES, model: string, key = gw.key!) =>
    execa(claudeBin(), ['-p', `Create hello.txt in this directory containing: ${CONTENT}`, '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({ ...MODES[mode](key), ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });

  it.each([
    ['vertex', 'claude-sonnet-4-5@20250929', () => messages],
    ['vertex-root', 'oc/gpt-4o-mini', () => chat],
    ['bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', () => messages],
    ['bedrock', 'oc/gpt-4o-mini', () => chat],
  ] as const)('%s mode: claude -p with %s writes the file', async (mode, model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    workDir = tempDir('gw-claude-cloud-');
    const run = await claude(mode, model);
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${fake.rejections.join(' | ')}\npaths: ${fake.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8')).toBe(CONTENT);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    const first = fake.requests[0].json as Record<string, any>;
    expect(first.anthropic_version).toBeUndefined();
    if (fake === messages) {
      // The cloud's id reached the Anthropic upstream as the model the gateway serves, Claude Code's own body otherwise.
      expect(first.model).toBe('claude-sonnet-4-5');
      expect(first.thinking).toMatchObject({ type: 'enabled' });
      // Bedrock's `anthropic_beta` body field went on as Anthropic's header.
      if (mode === 'bedrock') expect(fake.requests[0].headers['anthropic-beta'], report).toMatch(/interleaved-thinking/);
    }
  });

  // (Bedrock mode: Claude Code retries a 401 as expired AWS credentials for minutes; test/e2e/cloud-faces.test.ts checks the answer.)
  it('vertex mode: a wrong key is refused in Anthropic\'s envelope, which Claude Code reports', async () => {
    workDir = tempDir('gw-claude-cloud-');
    const run = await claude('vertex', 'oc/gpt-4o-mini', 'sk-gw-wrong');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`;
    expect(run.exitCode, report).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`, report).toMatch(/401|invalid|authentication/i);
    expect(fs.existsSync(path.join(workDir, 'hello.txt'))).toBe(false);
  }, 150_000);
});
