/**
 * Claude Code (the real CLI, pinned in test/clients) through the gateway (issue 24): `claude -p`
 * non-interactive with the Write tool allowed completes a task that writes a file, with the model
 * served under an id Claude Code does not recognise by an Anthropic fake (passthrough), a Chat
 * fake and a Responses fake (conversion). The fakes are strict (test/helpers/strict-fakes.ts):
 * turn 1 calls Write, the final text comes once the tool result arrives; any request the real
 * API would refuse fails the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';

describe('Claude Code through the gateway', () => {
  let workDir = '';
  const pick = (names: string[]) => (names.includes('Write') ? { name: 'Write', input: { file_path: path.join(workDir, 'hello.txt'), content: CONTENT } } : undefined);
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'my-claude': { maxOutput: 64000, reasoning: true } }, pick });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'my-claude', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages]) await fake?.close();
  });

  it("answers Claude Code's HEAD / probe with 200", async () => {
    expect((await fetch(gw.url, { method: 'HEAD' })).status).toBe(200);
  });

  it.each([
    ['ant/my-claude', () => messages],
    ['oc/gpt-4o-mini', () => chat],
    ['or/gpt-4.1', () => responses],
  ])('claude -p with %s writes the file', async (model, fakeOf) => {
    const fake = fakeOf();
    workDir = tempDir('gw-claude-code-');
    const run = await execa(claudeBin(), ['-p', `Create hello.txt in this directory containing: ${CONTENT}`, '--model', model, '--allowedTools', 'Write', '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({
        ANTHROPIC_BASE_URL: gw.url,
        ANTHROPIC_AUTH_TOKEN: gw.key!,
        // Its small/fast model (titles, summaries) goes to the same model: no request for an id the gateway lacks.
        ANTHROPIC_SMALL_FAST_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${fake.rejections.join(' | ')}\npaths: ${fake.requests.map((r) => `${r.method} ${r.path} ${r.headers['anthropic-beta'] ?? ''}`).join(', ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8')).toBe(CONTENT);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    if (model === 'ant/my-claude') {
      // The shapes this route is about reached the upstream as Claude Code wrote them.
      const first = fake.requests[0].json as Record<string, any>;
      expect(first.thinking).toMatchObject({ type: 'adaptive' });
      expect(first.messages.some((m: { role: string }) => m.role === 'system')).toBe(true);
    }
  });
});
