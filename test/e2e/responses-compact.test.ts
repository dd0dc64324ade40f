/**
 * `POST /v1/responses/compact` (the openai SDK's `responses.compact`, what Codex calls to compact a
 * long conversation on its OpenAI provider): passed through to a Responses upstream, emulated on
 * Chat and Messages upstreams (the routed model writes a summary; the answer has OpenAI's shape,
 * the user messages then one `compaction` item), and that item read back on the next request.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startCompactionlessFake, startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const SUMMARY = 'Summary: the user wants hello.txt; it is written.';

const history: any[] = [
  { role: 'user', content: 'Create hello.txt containing hi.' },
  { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":"echo hi > hello.txt"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'done' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Written.' }] },
  { role: 'user', content: 'Thanks. Now check it.' },
];
const tools: any[] = [{ type: 'function', name: 'shell', description: 'Runs a command', parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false }];

describe('POST /v1/responses/compact', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  /** A Responses server without OpenAI's compaction (vLLM and other OpenAI-compatible servers). */
  let routeless: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: SUMMARY });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, finalText: SUMMARY });
    routeless = await startCompactionlessFake({ models: { qwen: { maxOutput: 8192, reasoning: false } }, finalText: SUMMARY });
    gw = await spawnGateway({
      config: {
        providers: {
          vl: { plugin: 'openai', baseURL: `${routeless.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['qwen'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5', 'gpt-gone'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000 }] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, routeless]) await fake?.close();
  });

  it('passes through to a Responses upstream: its /responses/compact, its compaction item, byte for byte', async () => {
    responses.requests.length = 0;
    const compacted = await openai.responses.compact({ model: 'or/gpt-5', input: history, instructions: 'Be brief.' });
    expect(responses.rejections).toEqual([]);
    expect(responses.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses/compact']);
    expect(responses.requests[0]!.json).toMatchObject({ model: 'gpt-5', instructions: 'Be brief.', input: history });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.id).toBe('resp_compact1');
    expect(compacted.output.at(-1)).toEqual({ id: 'cmp_upstream1', type: 'compaction', encrypted_content: 'gAAAAB-opaque-upstream-compaction' });
    expect(compacted.usage.total_tokens).toBe(577);
  });

  it.each(['or/gpt-5', 'ant/claude-up'])('compacts a stored conversation named by previous_response_id alone on %s (the Agents SDK compaction session does)', async (model) => {
    for (const fake of [responses, messages]) fake.rejections.length = 0;
    const first = await openai.responses.create({ model, input: 'Create hello.txt containing hi.' });
    // `input` is optional on /responses/compact (openai SDK ResponseCompactParams): the stored chain is the history.
    const compacted = await openai.responses.compact({ model, previous_response_id: first.id } as any);
    expect([...responses.rejections, ...messages.rejections]).toEqual([]);
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.filter((item: any) => item.type === 'message').map((item: any) => item.content)).toEqual([[{ type: 'input_text', text: 'Create hello.txt containing hi.' }]]);
    expect(compacted.output.at(-1)).toMatchObject({ type: 'compaction' });
  });

  it('emulates it on a Responses upstream whose server has no compact route (404): the model summarizes over its /responses', async () => {
    routeless.requests.length = 0;
    const compacted = await openai.responses.compact({ model: 'vl/qwen', input: history, instructions: 'Be brief.', tools } as any);
    expect(routeless.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses/compact', 'POST /v1/responses']);
    const asked = routeless.requests[1]!.json!;
    expect(JSON.stringify(asked.input)).toContain('handoff summary');
    expect(asked.tool_choice).toBe('none');
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((item: any) => item.type)).toEqual(['message', 'message', 'compaction']);
    expect((compacted.output.at(-1) as any).encrypted_content).toMatch(/^gwcmp:/);

    // A model the upstream does not know (OpenAI's 404 model_not_found on its compact route) is that, not asked again.
    responses.requests.length = 0;
    const error = await openai.responses.compact({ model: 'or/gpt-gone', input: history } as any).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect((error as any).code).toBe('model_not_found');
    expect(responses.requests.map((r) => r.path)).toEqual(['/v1/responses/compact']);
  });

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
  ])('emulates it on %s: the model summarizes, the answer is the user messages then one compaction item, read back next turn', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const compacted = await openai.responses.compact({ model, input: history, instructions: 'Be brief.', tools } as any);
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    const asked = JSON.stringify(fake.requests[0]!.json);
    // The summary request: the history, the gateway's compaction prompt last, no tool call allowed.
    expect(asked).toContain('Thanks. Now check it.');
    expect(asked).toContain('handoff summary');
    expect(JSON.stringify(fake.requests[0]!.json!.tool_choice)).toMatch(/none/);
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.id).toMatch(/^resp_/);
    expect(compacted.usage.output_tokens).toBeGreaterThan(0);
    const users = compacted.output.filter((item: any) => item.type === 'message');
    expect(users.map((item: any) => [item.role, item.content])).toEqual([
      ['user', [{ type: 'input_text', text: 'Create hello.txt containing hi.' }]],
      ['user', [{ type: 'input_text', text: 'Thanks. Now check it.' }]],
    ]);
    const compaction: any = compacted.output.at(-1);
    expect(compaction).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/), encrypted_content: expect.any(String) });
    expect(compaction.encrypted_content).not.toContain(SUMMARY); // opaque to the client, as OpenAI's

    // The next turn sends the compacted history back (what Codex does): the upstream gets the summary as a user message.
    fake.requests.length = 0;
    const next = await openai.responses.create({ model, input: [...(compacted.output as any[]), { role: 'user', content: 'Go on.' }], store: false });
    expect(fake.rejections).toEqual([]);
    expect(next.output_text).toBe(SUMMARY);
    const sent = JSON.stringify(fake.requests[0]!.json);
    expect(sent).toContain(SUMMARY);
    expect(sent).toContain('Go on.');
  });

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['ant/claude-up', () => messages],
  ])('answers a compaction_trigger turn (Codex remote compaction v2) on %s with exactly one compaction item, streamed and whole', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    const input = [...history, { type: 'compaction_trigger' }] as any[];
    const stream = await openai.responses.create({ model, input, tools, stream: true, store: false } as any);
    const done: any[] = [];
    let completed: any;
    for await (const event of stream as unknown as AsyncIterable<any>) {
      if (event.type === 'response.output_item.done') done.push(event.item);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(fake.rejections).toEqual([]);
    const asked = JSON.stringify(fake.requests[0]!.json);
    expect(asked).toContain('handoff summary');
    expect(asked).not.toContain('compaction_trigger');
    expect(done.map((item) => item.type)).toEqual(['compaction']);
    expect(done[0].encrypted_content).toMatch(/^gwcmp:/);
    expect(completed.output).toEqual(done);
    expect(completed.usage.output_tokens).toBeGreaterThan(0);

    const whole = await openai.responses.create({ model, input, tools, store: false } as any);
    expect(whole.output.map((item: any) => item.type)).toEqual(['compaction']);

    // The compacted history (Codex keeps the user messages, then the item) continues on the same route.
    fake.requests.length = 0;
    const users = history.filter((item) => item.role === 'user');
    const next = await openai.responses.create({ model, input: [...users, done[0], { role: 'user', content: 'Go on.' }], store: false });
    expect(next.output_text).toBe(SUMMARY);
    expect(JSON.stringify(fake.requests[0]!.json)).toContain(SUMMARY);
  });

  it('answers a compaction_trigger turn on a Responses server that refuses the item (400): the model summarizes there', async () => {
    routeless.requests.length = 0;
    const input = [...history, { type: 'compaction_trigger' }] as any[];
    const stream = await openai.responses.create({ model: 'vl/qwen', input, tools, stream: true, store: false } as any);
    const done: any[] = [];
    for await (const event of stream as unknown as AsyncIterable<any>) if (event.type === 'response.output_item.done') done.push(event.item);
    expect(routeless.requests).toHaveLength(2);
    const asked = JSON.stringify(routeless.requests[1]!.json);
    expect(asked).toContain('handoff summary');
    expect(asked).not.toContain('compaction_trigger');
    expect(done.map((item) => item.type)).toEqual(['compaction']);
    expect(done[0].encrypted_content).toMatch(/^gwcmp:/);
    // Any other refusal of such a server is the client's to see.
    const error = await openai.responses.create({ model: 'vl/qwen', input: [{ role: 'user', content: 'hi' }], max_output_tokens: 100_000, store: false }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('reads a gateway compaction item on an OpenAI passthrough as the summary (the conversation moved to an OpenAI model)', async () => {
    const compacted = await openai.responses.compact({ model: 'ant/claude-up', input: history, tools } as any);
    responses.requests.length = 0;
    const next = await openai.responses.create({ model: 'or/gpt-5', input: [...(compacted.output as any[]), { role: 'user', content: 'Go on.' }], store: false });
    expect(responses.rejections).toEqual([]);
    expect(next.output_text).toBe('Done: the file is written.');
    const input = responses.requests[0]!.json!.input as any[];
    expect(JSON.stringify(input)).not.toContain('gwcmp:');
    expect(input.map((item) => item.role)).toEqual(['user', 'user', 'user', 'user']);
    expect(input[2].content[0].text).toContain(SUMMARY);
    // OpenAI's own compaction item goes as it came.
    responses.requests.length = 0;
    await openai.responses.create({ model: 'or/gpt-5', input: [{ type: 'compaction', encrypted_content: 'gAAAAB-opaque-upstream-compaction' } as any, { role: 'user', content: 'Go on.' }], store: false });
    expect(responses.rejections).toEqual([]);
    expect(responses.requests[0]!.json!.input).toEqual([{ type: 'compaction', encrypted_content: 'gAAAAB-opaque-upstream-compaction' }, { role: 'user', content: 'Go on.' }]);
  });

  it('refuses an upstream compaction item on a converted route: its content is readable only by OpenAI', async () => {
    const error = await openai.responses
      .create({ model: 'oc/gpt-4o-mini', input: [{ role: 'user', content: 'hi' }, { type: 'compaction', encrypted_content: 'gAAAAB-opaque-upstream-compaction' } as any], store: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((error as InstanceType<typeof OpenAI.APIError>).param).toBe('input[1].encrypted_content');
  });
});
