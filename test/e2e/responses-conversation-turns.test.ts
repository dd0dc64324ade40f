/**
 * A conversation takes one turn at a time, keeps only what its later turns are given, and checks
 * the `include` of its items routes. Before: two `responses.create({conversation})` at once each
 * read the same history (the second answer never saw the first turn); an item of a type the
 * history cannot carry (`file_search_call`, `computer_call`, a made-up type) was kept and then
 * left out of every later turn; `include` was ignored whatever it said. Real CLI, official openai
 * SDK, a fake Chat upstream the gateway converts to (its answers held until the test lets them go).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, any>;

describe('a conversation: one turn at a time, what it keeps it uses, include checked', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;
  /** Lets the held answers go. */
  let release: () => void = () => undefined;
  let held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    upstream = await startFakeUpstream(async (request) => {
      const body = request.json as Json;
      const last = JSON.stringify(body.messages.at(-1));
      if (last.includes('slow')) await held;
      const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
      return { json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: `answer ${body.messages.length}` }, finish_reason: 'stop' }], usage } };
    });
    gw = await spawnGateway({
      config: {
        providers: { oc: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    release();
    await gw?.stop();
    await upstream?.close();
  });

  const texts = (items: Json[]) => items.filter((item) => item.type === 'message').map((item) => `${item.role}: ${item.content.map((part: Json) => part.text).join('')}`);

  it('a second turn while one runs is refused (409, param conversation, Retry-After) before any upstream call; once the first is added, the next turn reads it', async () => {
    const conversation = await client.conversations.create({});
    const first = client.responses.create({ model: 'oc/gpt-4o-mini', input: 'slow question', conversation: conversation.id });
    await until('the first turn to reach the upstream', async () => upstream.requests.length > 0 || undefined);
    const calls = upstream.requests.length;
    for (const stream of [false, true]) {
      const second = await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'second question', conversation: { id: conversation.id }, stream } as never).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(OpenAI.ConflictError);
      const error = second as InstanceType<typeof OpenAI.ConflictError>;
      expect(error.error).toMatchObject({ param: 'conversation' });
      expect(error.message).toContain('Another process is currently operating on this conversation');
      expect(error.headers?.get('retry-after')).toBe('1');
    }
    expect(upstream.requests.length).toBe(calls);
    // Another conversation is not held by it.
    const elsewhere = await client.conversations.create({});
    expect((await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'hi', conversation: elsewhere.id })).output_text).toBe('answer 1');
    release();
    expect((await first).output_text).toBe('answer 1');
    const next = await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'second question', conversation: conversation.id });
    expect(next.output_text).toBe('answer 3');
    const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
    expect(texts(items.data as never)).toEqual(['user: slow question', 'assistant: answer 1', 'user: second question', 'assistant: answer 3']);
  });

  it('a turn that failed lets the next one run', async () => {
    const conversation = await client.conversations.create({});
    const missing = await client.responses.create({ model: 'oc/no-such-model', input: 'hi', conversation: conversation.id }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.APIError);
    expect((await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'hi', conversation: conversation.id })).output_text).toBe('answer 1');
  });

  it('an item the history cannot carry is refused up front (items.create, create, a turn\'s input), naming its type; nothing is kept', async () => {
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'hello' }] });
    const formless = [
      { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['q'], results: null },
      { type: 'computer_call', id: 'cu_1', call_id: 'call_1', status: 'completed', action: { type: 'screenshot' }, pending_safety_checks: [] },
      { type: 'wizard_call', id: 'wz_1' },
    ];
    for (const item of formless) {
      const added = await client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'ok' }, item] as never }).catch((e: unknown) => e);
      expect(added, item.type).toBeInstanceOf(OpenAI.APIError);
      expect((added as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
      expect((added as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ param: 'items[1].type' });
      expect((added as Error).message).toContain(item.type);
      const created = await client.conversations.create({ items: [item] as never }).catch((e: unknown) => e);
      expect((created as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    }
    const before = upstream.requests.length;
    const turn = await client.responses.create({ model: 'oc/gpt-4o-mini', input: [{ role: 'user', content: 'hi' }, formless[0]] as never, conversation: conversation.id }).catch((e: unknown) => e);
    expect((turn as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((turn as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ param: 'input[1].type' });
    expect(upstream.requests.length).toBe(before);
    expect(texts((await client.conversations.items.list(conversation.id)).data as never)).toEqual(['user: hello']);
    // What it does keep goes to the next turn: a web search call, reasoning, a function call and its output.
    await client.conversations.items.create(conversation.id, {
      items: [
        { type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_9', output: 'looked up' },
      ] as never,
    });
    await client.responses.create({ model: 'oc/gpt-4o-mini', input: 'and now?', conversation: conversation.id });
    const sent = upstream.requests.at(-1)!.json as Json;
    expect(JSON.stringify(sent.messages)).toContain('looked up');
  });

  it("include: OpenAI's values are taken (items are listed whole); any other is OpenAI's 400 naming include", async () => {
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'hello' }] });
    const listed = await client.conversations.items.list(conversation.id, { include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] });
    expect(texts(listed.data as never)).toEqual(['user: hello']);
    const bad = await client.conversations.items.list(conversation.id, { include: ['reasoning.encrypted_contents'] as never }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'include' });
    expect((bad as Error).message).toContain("Invalid value: 'reasoning.encrypted_contents'");
    const id = listed.data[0].id!;
    const one = await client.conversations.items.retrieve(id, { conversation_id: conversation.id, include: ['file_search_call.results'] });
    expect(one.id).toBe(id);
    const badOne = await client.conversations.items.retrieve(id, { conversation_id: conversation.id, include: ['everything'] as never }).catch((e: unknown) => e);
    expect(badOne).toBeInstanceOf(OpenAI.BadRequestError);
    const badAdd = await client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'x' }], include: ['nope'] as never }).catch((e: unknown) => e);
    expect(badAdd).toBeInstanceOf(OpenAI.BadRequestError);
    expect(texts((await client.conversations.items.list(conversation.id)).data as never)).toEqual(['user: hello']);
  });
});
