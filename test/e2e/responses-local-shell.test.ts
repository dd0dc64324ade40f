/**
 * OpenAI's `local_shell` tool (the client runs the command the model asks for) from a Responses
 * client on upstreams that have no such tool: the AI SDK's `openai.tools.localShell` (its default
 * `openai(id)` provider speaks Responses) runs a command a Claude model (Messages) or a Chat model
 * asked for, and the model gets its output. The gateway offers the tool as a function named
 * `local_shell`, gives its calls back as `local_shell_call` items and reads the client's
 * `local_shell_call` / `local_shell_call_output` items (or a reference to the stored call) as that
 * function's call and result. Before, the tool and its items were dropped: the model never saw it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const COMMAND = ['bash', '-lc', 'echo hello'];
const pick = (names: string[]) => (names.includes('local_shell') ? { name: 'local_shell', input: { command: COMMAND, working_directory: '/tmp' } } : undefined);

describe('local_shell from a Responses client on other upstreams', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let ai: any;
  let openai: any;

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick, finalText: 'It printed hello.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, pick, finalText: 'It printed hello.' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling'] }] },
        },
      },
    });
    ai = await clientModule('ai');
    const { createOpenAI } = await clientModule('@ai-sdk/openai');
    openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages]) await fake?.close();
  });

  it.each([
    ['ant/claude-up', 'generateText', () => messages],
    ['ant/claude-up', 'streamText', () => messages],
    ['oc/gpt-4o-mini', 'generateText', () => chat],
    ['oc/gpt-4o-mini', 'streamText', () => chat],
  ])('the AI SDK on %s (%s) runs the command and the model reads its output', async (model, mode, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const actions: unknown[] = [];
    const localShell = openai.tools.localShell({
      execute: async ({ action }: { action: unknown }) => {
        actions.push(action);
        return { output: 'hello\n' };
      },
    });
    const options = { model: openai(model), prompt: 'Run echo hello in a shell.', tools: { local_shell: localShell }, stopWhen: ai.stepCountIs(3) };
    let text: string;
    if (mode === 'streamText') {
      const result = ai.streamText(options);
      text = await result.text;
    } else text = (await ai.generateText(options)).text;
    const report = `rejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.map((request) => request.body.slice(0, 1500)).join('\n')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(actions, report).toEqual([expect.objectContaining({ type: 'exec', command: COMMAND })]);
    // streamText hands execute the action in the SDK's names; generateText validates the item's
    // snake_case action against them, which drops working_directory (the SDK's, on OpenAI too).
    if (mode === 'streamText') expect(actions[0], report).toMatchObject({ workingDirectory: '/tmp' });
    expect(text, report).toBe('It printed hello.');
    // The upstream was offered the tool as a function and got the command's output as its result.
    expect(fake.requests, report).toHaveLength(2);
    const [first, second] = fake.requests.map((request) => request.json as Record<string, any>);
    const offered = first.tools.map((tool: Record<string, any>) => tool.name ?? tool.function?.name);
    expect(offered).toEqual(['local_shell']);
    expect(JSON.stringify(second)).toContain('hello\\n');
    // The call went back as the model made it (Chat carries its arguments as JSON text).
    expect(JSON.stringify(second)).toMatch(/working_directory\\*":\\*"\/tmp/);
  });
});
