/**
 * Responses `custom` tools (freeform: the model writes plain text, e.g. Codex's `apply_patch` with
 * its Lark grammar) are the client's own tools, so every upstream can be offered them: on a
 * converted route each goes as a function with one string parameter `input`, and the model's call
 * comes back as a `custom_tool_call` whose `input` is that text, whole and streamed; the call and
 * its `custom_tool_call_output` sent back reach the upstream as a tool call and its result.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n';
const applyPatch: any = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Edits files with a patch.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};

describe('Responses custom (freeform) tools on converted routes', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  const pick = (names: string[]) => (names.includes('apply_patch') ? { name: 'apply_patch', input: { input: PATCH } } : undefined);

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000 }] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages]) await fake?.close();
  });

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
  ])('%s: the call comes back as a custom_tool_call, whole and streamed, and its output goes back', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const { data: whole, response } = await openai.responses.create({ model, input: 'Add hello.txt', tools: [applyPatch], store: false }).withResponse();
    expect(fake.rejections).toEqual([]);
    expect(response.headers.get('x-gateway-dropped-tools')).toBeNull();
    const sent = JSON.stringify(fake.requests[0]!.json!.tools);
    expect(sent).toContain('apply_patch');
    expect(sent).toContain('start: begin_patch hunk+ end_patch'); // the grammar, for the model to follow
    const call: any = whole.output.find((item: any) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: PATCH, call_id: expect.any(String) });
    expect(whole.output.some((item: any) => item.type === 'function_call')).toBe(false);

    // Forcing it (tool_choice custom) forces that tool upstream.
    fake.requests.length = 0;
    const forced = await openai.responses.create({ model, input: 'Add hello.txt', tools: [applyPatch], tool_choice: { type: 'custom', name: 'apply_patch' }, store: false });
    expect(JSON.stringify(fake.requests[0]!.json!.tool_choice)).toContain('apply_patch');
    expect(forced.output.map((item: any) => [item.type, item.name])).toContainEqual(['custom_tool_call', 'apply_patch']);

    /** The events of a stream: their types, the custom tool input deltas, the custom_tool_call item done. */
    const read = async (stream: AsyncIterable<any>) => {
      const seen = { types: [] as string[], deltas: '', done: undefined as any, id: '' };
      for await (const event of stream) {
        seen.types.push(event.type);
        if (event.type === 'response.created') seen.id = event.response.id;
        if (event.type === 'response.custom_tool_call_input.delta') seen.deltas += event.delta;
        if (event.type === 'response.output_item.done' && event.item.type === 'custom_tool_call') seen.done = event.item;
      }
      return seen;
    };
    const streamed = await read((await openai.responses.create({ model, input: 'Add hello.txt', tools: [applyPatch], stream: true })) as AsyncIterable<any>);
    expect(fake.rejections).toEqual([]);
    expect(streamed.types).toContain('response.custom_tool_call_input.done');
    expect(streamed.types).not.toContain('response.function_call_arguments.delta');
    expect(streamed.deltas).toBe(PATCH);
    expect(streamed.done).toMatchObject({ name: 'apply_patch', input: PATCH });
    // The stored answer streamed again (GET /v1/responses/{id}?stream=true) sends the same events.
    const replayed = await read((await openai.responses.retrieve(streamed.id, { stream: true })) as AsyncIterable<any>);
    expect(replayed.types.filter((type) => type.startsWith('response.custom_tool_call_input'))).toEqual(['response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done']);
    expect(replayed.deltas).toBe(PATCH);
    expect(replayed.done).toEqual(streamed.done);

    fake.requests.length = 0;
    const next = await openai.responses.create({
      model,
      input: [{ role: 'user', content: 'Add hello.txt' }, { type: 'custom_tool_call', call_id: call.call_id, name: 'apply_patch', input: PATCH }, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'Success. Updated: A hello.txt' }] as any,
      tools: [applyPatch],
      store: false,
    });
    expect(fake.rejections).toEqual([]);
    expect(next.output_text).toBe('Done: the file is written.');
    const history = JSON.stringify(fake.requests[0]!.json);
    expect(history).toContain('Success. Updated: A hello.txt');
    expect(history).toContain("*** Add File: hello.txt");
  });
});
