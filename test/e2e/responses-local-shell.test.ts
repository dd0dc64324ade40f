/**
 * OpenAI's `local_shell` tool (the client runs the command the model asks for) from a Responses
 * client on upstreams that have no such tool: the AI SDK's `openai.tools.localShell` (its default
 * `openai(id)` provider speaks Responses) runs a command a Claude model (Messages) or a Chat model
 * asked for, and the model gets its output. The gateway offers the tool as a function named
 * `local_shell`, gives its calls back as `local_shell_call` items and reads the client's
 * `local_shell_call` / `local_shell_call_output` items (or a reference to the stored call) as that
 * function's call and result. Before, the tool and its items were dropped: the model never saw it.
 * GPT-5.1's `shell` and `apply_patch` tools are carried the same way: the AI SDK's
 * `openai.tools.shell` / `applyPatch` and the openai SDK get `shell_call` / `apply_patch_call`
 * items, whole and streamed, and the upstream reads their outputs (dropped as hosted before).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

const COMMAND = ['bash', '-lc', 'echo hello'];
const COMMANDS = ['ls -la', 'echo hello'];
const OPERATION = { type: 'update_file', path: 'src/a.txt', diff: '@@\n-old\n+new\n' };
const pick = (names: string[]) => {
  if (names.includes('local_shell')) return { name: 'local_shell', input: { command: COMMAND, working_directory: '/tmp' } };
  if (names.includes('shell')) return { name: 'shell', input: { commands: COMMANDS, timeout_ms: 5000 } };
  if (names.includes('apply_patch')) return { name: 'apply_patch', input: OPERATION };
  return undefined;
};

describe('local_shell, shell and apply_patch from a Responses client on other upstreams', () => {
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

  const fakeOfModel = (model: string) => (model.startsWith('ant/') ? messages : chat);
  const report = (fake: StrictFake) => `rejections: ${fake.rejections.join(' | ')}\nrequests: ${fake.requests.map((request) => request.body.slice(0, 1500)).join('\n')}`;

  it.each([
    ['ant/claude-up', 'generateText'],
    ['ant/claude-up', 'streamText'],
    ['oc/gpt-4o-mini', 'generateText'],
    ['oc/gpt-4o-mini', 'streamText'],
  ])('the AI SDK shell tool on %s (%s) runs the commands and the model reads their output', async (model, mode) => {
    const fake = fakeOfModel(model);
    fake.requests.length = 0;
    const actions: unknown[] = [];
    const shell = openai.tools.shell({
      execute: async ({ action }: { action: unknown }) => {
        actions.push(action);
        return { output: [{ stdout: 'hello-out\n', stderr: '', outcome: { type: 'exit', exitCode: 0 } }] };
      },
    });
    const options = { model: openai(model), prompt: 'List the files.', tools: { shell }, stopWhen: ai.stepCountIs(3) };
    const text = mode === 'streamText' ? await ai.streamText(options).text : (await ai.generateText(options)).text;
    expect(fake.rejections, report(fake)).toEqual([]);
    expect(actions, report(fake)).toEqual([expect.objectContaining({ commands: COMMANDS })]);
    expect(text, report(fake)).toBe('It printed hello.');
    expect(fake.requests, report(fake)).toHaveLength(2);
    const [first, second] = fake.requests.map((request) => request.json as Record<string, any>);
    expect(first.tools.map((tool: Record<string, any>) => tool.name ?? tool.function?.name)).toEqual(['shell']);
    const history = JSON.stringify(second);
    expect(history).toContain('hello-out');
    expect(history).toContain('exit code 0');
    expect(history).toMatch(/commands\\*":\[\\*"ls -la/);
  });

  it.each([
    ['ant/claude-up', 'generateText'],
    ['ant/claude-up', 'streamText'],
    ['oc/gpt-4o-mini', 'streamText'],
  ])('the AI SDK applyPatch tool on %s (%s) applies the patch and the model reads the result', async (model, mode) => {
    const fake = fakeOfModel(model);
    fake.requests.length = 0;
    const operations: unknown[] = [];
    const applyPatch = openai.tools.applyPatch({
      execute: async ({ operation }: { operation: unknown }) => {
        operations.push(operation);
        return { status: 'completed', output: 'patched src/a.txt' };
      },
    });
    const options = { model: openai(model), prompt: 'Fix a.txt.', tools: { apply_patch: applyPatch }, stopWhen: ai.stepCountIs(3) };
    const text = mode === 'streamText' ? await ai.streamText(options).text : (await ai.generateText(options)).text;
    expect(fake.rejections, report(fake)).toEqual([]);
    expect(operations, report(fake)).toEqual([OPERATION]);
    expect(text, report(fake)).toBe('It printed hello.');
    expect(fake.requests, report(fake)).toHaveLength(2);
    const [first, second] = fake.requests.map((request) => request.json as Record<string, any>);
    expect(first.tools.map((tool: Record<string, any>) => tool.name ?? tool.function?.name)).toEqual(['apply_patch']);
    const history = JSON.stringify(second);
    expect(history).toContain('patched src/a.txt');
    expect(history).toMatch(/path\\*":\\*"src\/a.txt/);
  });

  it('the openai SDK gets shell_call and apply_patch_call items, whole and from the stream helper', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const whole = await client.responses.create({ model: 'ant/claude-up', input: 'List the files.', tools: [{ type: 'shell', environment: { type: 'local' } }] });
    expect(whole.output).toEqual([expect.objectContaining({ type: 'shell_call', status: 'completed', action: { commands: COMMANDS, timeout_ms: 5000, max_output_length: null } })]);
    const stream = client.responses.stream({ model: 'oc/gpt-4o-mini', input: 'Fix a.txt.', tools: [{ type: 'apply_patch' }] });
    const added: Array<Record<string, any>> = [];
    stream.on('response.output_item.added', (event) => added.push(event.item as Record<string, any>));
    const final = await stream.finalResponse();
    expect(added).toEqual([expect.objectContaining({ type: 'apply_patch_call', status: 'in_progress', operation: expect.objectContaining({ type: 'update_file', path: 'src/a.txt' }) })]);
    expect(final.output).toEqual([expect.objectContaining({ type: 'apply_patch_call', status: 'completed', operation: OPERATION })]);
  });
});
