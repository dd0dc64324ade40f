/**
 * Server-side state of OpenAI's on the gateway. OpenAI's Conversations API is served over the
 * gateway's store, per account: `client.conversations…` (create, retrieve, update, delete; items
 * list, create, retrieve, delete), and a Responses request naming a `conversation` reads its items
 * as the history and adds its input and output to it, whatever the upstream's format (a Chat
 * upstream, a Responses upstream). An id the account does not have is OpenAI's 404 (`param:
 * conversation`), before any upstream call. Before, every `conversation` was that 404 and
 * `/v1/conversations` a 404 saying the API was not served (the Agents SDK's
 * OpenAIConversationsSession could not run). A prompt template goes only to an OpenAI Responses
 * upstream (before: dropped on a converted route, the model answering without its instructions;
 * and a prompt-only body, which OpenAI takes, was a 400 for its missing input).
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';
import { until } from '../helpers/until.ts';
import path from 'node:path';

const FINAL = 'Done: the file is written.';

describe("OpenAI's Conversations API over the gateway's store", () => {
  let responses: StrictFake;
  let chat: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let other: OpenAI;
  let chatOnly: OpenAI;

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } } });
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
        oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
        mock: { plugin: 'mock' },
        broken: { plugin: 'mock', failFirst: 1_000_000 },
      },
      metrics: { token: 'conv-metrics' },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    const keys: string[] = [];
    for (const email of ['alice@example.test', 'bob@example.test']) {
      expect((await cli(['accounts', 'create', '--email', email, '--credits', '1000000', '--tier', 'enterprise'])).exitCode).toBe(0);
      keys.push((JSON.parse(String((await cli(['keys', 'create', '--account', email, '--json'])).stdout)) as { key: string }).key);
    }
    keys.push((JSON.parse(String((await cli(['keys', 'create', '--account', 'alice@example.test', '--endpoints', 'chat', '--json'])).stdout)) as { key: string }).key);
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[0], maxRetries: 0 });
    other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[1], maxRetries: 0 });
    chatOnly = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[2], maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
    await chat?.close();
  });

  const texts = (items: Array<{ type: string; role?: string; content?: Array<{ text?: string }> }>) =>
    items.filter((item) => item.type === 'message').map((item) => `${item.role}: ${item.content?.map((part) => part.text).join('')}`);

  it('create, retrieve, update, items create / list / retrieve / delete, delete: the shapes the openai SDK reads', async () => {
    const conversation = await client.conversations.create({ metadata: { topic: 'demo' }, items: [{ type: 'message', role: 'user', content: 'Hello!' }] });
    expect(conversation).toMatchObject({ object: 'conversation', metadata: { topic: 'demo' } });
    expect(conversation.id).toMatch(/^conv_/);
    expect(Math.abs(conversation.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(await client.conversations.retrieve(conversation.id)).toEqual(conversation);
    expect(await client.conversations.update(conversation.id, { metadata: { topic: 'changed' } })).toMatchObject({ id: conversation.id, metadata: { topic: 'changed' } });

    const added = await client.conversations.items.create(conversation.id, {
      items: [
        { type: 'message', role: 'assistant', content: 'Hi, how can I help?' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
      ],
    });
    expect(added.object).toBe('list');
    expect(added.data).toHaveLength(2);
    expect(added.data[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi, how can I help?' }] });
    expect(added.first_id).toBe(added.data[0].id);
    expect(added.last_id).toBe(added.data[1].id);

    const all: OpenAI.Conversations.ConversationItem[] = [];
    for await (const item of client.conversations.items.list(conversation.id, { order: 'asc', limit: 2 })) all.push(item);
    expect(texts(all as never)).toEqual(['user: Hello!', 'assistant: Hi, how can I help?', 'user: Weather?']);
    const newest = await client.conversations.items.list(conversation.id, { limit: 1 });
    expect(newest.data.map((item) => item.id)).toEqual([added.data[1].id]);
    expect(newest.has_more).toBe(true);
    expect(await client.conversations.items.retrieve(added.data[0].id!, { conversation_id: conversation.id })).toEqual(added.data[0]);

    const after = await client.conversations.items.delete(added.data[0].id!, { conversation_id: conversation.id });
    expect(after).toMatchObject({ id: conversation.id, object: 'conversation' });
    const left = await client.conversations.items.list(conversation.id, { order: 'asc' });
    expect(texts(left.data as never)).toEqual(['user: Hello!', 'user: Weather?']);

    // Another account's key does not see it; a key scoped to Chat does not reach the Conversations API (the Responses group's).
    for (const call of [() => other.conversations.retrieve(conversation.id), () => other.conversations.items.list(conversation.id), () => other.conversations.delete(conversation.id)]) {
      await expect(call()).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    }
    await expect(chatOnly.conversations.retrieve(conversation.id)).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);

    expect(await client.conversations.delete(conversation.id)).toEqual({ id: conversation.id, object: 'conversation.deleted', deleted: true });
    const gone = await client.conversations.retrieve(conversation.id).catch((thrown: unknown) => thrown);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(`Conversation with id '${conversation.id}' not found`);
  });

  it("the Conversations routes are labelled in the metrics by their patterns (an id never becomes a label)", async () => {
    const conversation = await client.conversations.create({});
    await client.conversations.items.list(conversation.id);
    await other.conversations.retrieve(conversation.id).catch(() => undefined);
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer conv-metrics' } })).text();
    const routes = new Set([...text.matchAll(/gateway_requests_total\{[^}]*route="([^"]+)"/g)].map((match) => match[1]));
    for (const route of ['/v1/conversations', '/v1/conversations/:id/items', '/v1/conversations/:id']) expect(routes).toContain(route);
    expect(text).not.toContain(conversation.id);
  });

  it('bounds: metadata (16 keys, 64-character keys, 512-character values), 20 items a call, items that are not items', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    for (const metadata of [tooMany, { ['k'.repeat(65)]: 'v' }, { k: 'v'.repeat(513) }, { k: 1 }]) {
      await expect(client.conversations.create({ metadata: metadata as never })).rejects.toBeInstanceOf(OpenAI.APIError);
    }
    // Any key OpenAI takes is kept, '__proto__' too (before, it was dropped without a word: assigned onto a plain object).
    const odd = await fetch(`${gw.url}/v1/conversations`, { method: 'POST', headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' }, body: '{"metadata":{"__proto__":"p","constructor":"c"}}' });
    const made = (await odd.json()) as { id: string; metadata: Record<string, string> };
    for (const text of [JSON.stringify(made.metadata), JSON.stringify((await client.conversations.retrieve(made.id)).metadata)]) expect(JSON.parse(text)).toEqual(JSON.parse('{"__proto__":"p","constructor":"c"}'));
    const updated = await fetch(`${gw.url}/v1/conversations/${made.id}`, { method: 'POST', headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' }, body: '{"metadata":{"__proto__":"q"}}' });
    expect(JSON.stringify(((await updated.json()) as { metadata: unknown }).metadata)).toBe('{"__proto__":"q"}');
    expect(JSON.stringify((await client.conversations.retrieve(made.id)).metadata)).toBe('{"__proto__":"q"}');
    const conversation = await client.conversations.create({});
    const items = Array.from({ length: 21 }, () => ({ type: 'message' as const, role: 'user' as const, content: 'x' }));
    const error = await client.conversations.items.create(conversation.id, { items }).catch((thrown: unknown) => thrown);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((error as Error).message).toContain('at most 20 items');
    await expect(client.conversations.items.create(conversation.id, { items: [{ nonsense: true } as never] })).rejects.toBeInstanceOf(OpenAI.APIError);
    // The refusal names the field the client sent (items[i]…), not the Responses input it is read as.
    for (const [sent, param] of [
      [{ type: 'message', role: 'user', content: 42 }, 'items[1].content'],
      [{ type: 'function_call_output' }, 'items[1].call_id'],
    ] as const) {
      for (const call of [() => client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'fine' }, sent as never] }), () => client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'fine' }, sent as never] })]) {
        const refused = (await call().catch((thrown: unknown) => thrown)) as InstanceType<typeof OpenAI.APIError>;
        expect(refused.status).toBe(422);
        expect(refused.param).toBe(param);
        expect(refused.message).toContain(`'${param}'`);
      }
    }
    expect((await client.conversations.items.list(conversation.id)).data).toEqual([]);
  });

  it("items.create with `items: []` is OpenAI's 400 for an empty array naming `items` (before, a 200 that added nothing); conversations.create may still start empty", async () => {
    const conversation = await client.conversations.create({ items: [] });
    const error = await client.conversations.items.create(conversation.id, { items: [] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: 'bad_request',
      type: 'invalid_request_error',
      param: 'items',
      message: "Invalid 'items': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      details: { param: 'items', reason: 'empty_array' },
    });
    // Checked as the body is, before the conversation is looked up (as the missing `items` 400 is).
    const elsewhere = await other.conversations.items.create(conversation.id, { items: [] }).catch((thrown: unknown) => thrown);
    expect(elsewhere).toBeInstanceOf(OpenAI.BadRequestError);
    expect((await client.conversations.items.list(conversation.id)).data).toEqual([]);
  });

  it("items.list with an `after` that is no item of the conversation is a 404 naming it (before, an empty page: a stale or mistyped cursor read as the end of the list)", async () => {
    const given = (text: string, id: string) => ({ type: 'message', role: 'user', content: text, id }) as never;
    const conversation = await client.conversations.create({ items: [given('a', 'msg_after_a'), given('b', 'msg_after_b'), given('c', 'msg_after_c')] });
    await client.conversations.create({ items: [given('x', 'msg_after_elsewhere')] });
    await client.conversations.items.delete('msg_after_b', { conversation_id: conversation.id });
    // Never held, another conversation's, deleted: each is a 404 naming `after`, in either order.
    for (const after of ['msg_nope', 'msg_after_elsewhere', 'msg_after_b']) {
      for (const order of ['asc', 'desc'] as const) {
        const error = await client.conversations.items.list(conversation.id, { after, order }).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect((error as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ code: 'not_found', type: 'invalid_request_error', param: 'after' });
        expect((error as Error).message).toContain(`'${after}'`);
        expect((error as Error).message).toContain(conversation.id);
      }
    }
    // An item it holds is a cursor, the last one too (the empty page past it); a missing conversation is still the conversation's 404.
    expect(texts((await client.conversations.items.list(conversation.id, { after: 'msg_after_a', order: 'asc' })).data as never)).toEqual(['user: c']);
    expect((await client.conversations.items.list(conversation.id, { after: 'msg_after_c', order: 'asc' })).data).toEqual([]);
    const missing = await client.conversations.items.list('conv_nope', { after: 'msg_nope' }).catch((thrown: unknown) => thrown);
    expect((missing as Error).message).toContain("Conversation with id 'conv_nope' not found");
  });

  describe.each([
    ['a Chat upstream (converted)', 'oc/gpt-4o-mini', () => chat],
    ['a Responses upstream', 'or/gpt-5', () => responses],
  ])('responses.create with a conversation, on %s', (_label, model, upstream) => {
    it.each([false, true])('two turns (stream: %s): the second goes upstream with the first; both turns are in the conversation', async (stream) => {
      const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'developer', content: 'Be brief.' }] });
      const ask = async (input: string, as: string | { id: string }) => {
        if (!stream) return client.responses.create({ model, input, conversation: as });
        return client.responses.stream({ model, input, conversation: as }).finalResponse();
      };
      // The SDK's streamed final response has no output_text: read the output's text.
      const textOf = (response: OpenAI.Responses.Response) =>
        response.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : [])).join('');
      const first = await ask('What is the capital of France?', conversation.id);
      expect(textOf(first)).toBe(FINAL);
      const before = upstream().requests.length;
      const second = await ask('And of Italy?', { id: conversation.id });
      expect(textOf(second)).toBe(FINAL);
      // The answer names its conversation, as OpenAI's does; its stored copy too.
      for (const answer of [first, second, await client.responses.retrieve(second.id)]) expect(answer.conversation).toEqual({ id: conversation.id });
      expect(upstream().rejections).toEqual([]);
      const sent = JSON.stringify(upstream().requests.slice(before).map((r) => r.json));
      expect(upstream().requests.length).toBe(before + 1);
      for (const text of ['Be brief.', 'What is the capital of France?', FINAL, 'And of Italy?']) expect(sent).toContain(text);
      expect(sent).not.toContain(conversation.id);
      const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
      expect(texts(items.data as never)).toEqual(['developer: Be brief.', 'user: What is the capital of France?', `assistant: ${FINAL}`, 'user: And of Italy?', `assistant: ${FINAL}`]);
    });
  });

  it('an id the account does not have is a 404 naming conversation, on every route and whole or streamed, before any upstream call; with previous_response_id a 400', async () => {
    const mine = await client.conversations.create({});
    const before = responses.requests.length + chat.requests.length;
    for (const model of ['mock/echo', 'or/gpt-5', 'oc/gpt-4o-mini']) {
      for (const conversation of ['conv_abc123', { id: 'conv_abc123' }, mine.id]) {
        for (const stream of [false, true]) {
          const caller = conversation === mine.id ? other : client;
          const error = await caller.responses.create({ model, input: 'hi', conversation, stream } as never).catch((thrown: unknown) => thrown);
          expect(error).toBeInstanceOf(OpenAI.NotFoundError);
          expect((error as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ param: 'conversation' });
        }
      }
    }
    const both = await client.responses.create({ model: 'mock/echo', input: 'hi', conversation: mine.id, previous_response_id: 'resp_x' }).catch((thrown: unknown) => thrown);
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    expect((both as Error).message).toContain("Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.");
    expect(responses.requests.length + chat.requests.length).toBe(before);
    expect((await client.conversations.items.list(mine.id)).data).toEqual([]);
  });

  it('an item id the conversation already holds is not kept twice: the list pages to its end (before, an after cursor naming it went back and the SDK paged forever)', async () => {
    const given = (text: string, id: string) => ({ type: 'message', role: 'user', content: text, id }) as never;
    const conversation = await client.conversations.create({ items: [given('a', 'msg_A'), given('b', 'msg_B'), given('c', 'msg_A'), given('d', 'msg_C')] });
    const added = await client.conversations.items.create(conversation.id, { items: [given('e', 'msg_B')] });
    expect(added.data[0].id).toMatch(/^msg_/);
    expect(added.data[0].id).not.toBe('msg_B');
    // A turn whose input re-sends an item by its id: kept under a new one too.
    await client.responses.create({ model: 'oc/gpt-4o-mini', input: [given('f', 'msg_C')], conversation: conversation.id });
    const paged: OpenAI.Conversations.ConversationItem[] = [];
    for (const order of ['asc', 'desc'] as const) {
      paged.length = 0;
      for await (const item of client.conversations.items.list(conversation.id, { order, limit: 1 })) {
        paged.push(item);
        if (paged.length > 20) break;
      }
      const inOrder = texts(paged as never).filter((text) => text.startsWith('user'));
      expect(inOrder).toEqual(order === 'asc' ? ['user: a', 'user: b', 'user: c', 'user: d', 'user: e', 'user: f'] : ['user: f', 'user: e', 'user: d', 'user: c', 'user: b', 'user: a']);
      expect(paged).toHaveLength(7);
      expect(new Set(paged.map((item) => item.id)).size).toBe(7);
    }
    // The first of them keeps the id it was given, and is the one an id reads and deletes.
    expect(texts([await client.conversations.items.retrieve('msg_A', { conversation_id: conversation.id })] as never)).toEqual(['user: a']);
  });

  it("a file an item names by file_id goes inline on every turn, as in the request's own input (before, the gateway's id went upstream, which no upstream knows)", async () => {
    const text = 'The launch code is 4-8-15-16.';
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'notes.txt', { type: 'text/plain' }), purpose: 'user_data' });
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: [{ type: 'input_file', file_id: file.id }] } as never] });
    for (const [model, upstream] of [['oc/gpt-4o-mini', chat], ['or/gpt-5', responses]] as const) {
      const before = upstream.requests.length;
      const answer = await client.responses.create({ model, input: 'What is in the file?', conversation: conversation.id });
      expect(answer.status).toBe('completed');
      const sent = JSON.stringify(upstream.requests.slice(before).map((request) => request.json));
      expect(sent).not.toContain(file.id);
      expect(sent).toContain(Buffer.from(text).toString('base64'));
    }
    // Counted (POST /v1/responses/input_tokens) as it would be sent: the file inline there too, on the upstream's count.
    const before = responses.requests.length;
    const counted = await fetch(`${gw.url}/v1/responses/input_tokens`, { method: 'POST', headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'or/gpt-5', input: 'What is in the file?', conversation: conversation.id }) });
    expect(counted.status).toBe(200);
    const countSent = JSON.stringify(responses.requests.slice(before).map((request) => request.json));
    expect(countSent).not.toContain(file.id);
    expect(countSent).toContain(Buffer.from(text).toString('base64'));
    // The conversation keeps the item as it was given (its file_id), not the inlined copy.
    const first = (await client.conversations.items.list(conversation.id, { order: 'asc', limit: 1 })).data[0] as unknown as { content: Array<Record<string, unknown>> };
    expect(first.content[0]).toMatchObject({ type: 'input_file', file_id: file.id });
  });

  it("a turn's own input naming a file by file_id is kept by its id, not the inlined copy (before, the file's bytes were kept in the conversation, and stayed after the file was deleted)", async () => {
    const text = 'The vault opens at dawn.';
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'vault.txt', { type: 'text/plain' }), purpose: 'user_data' });
    const conversation = await client.conversations.create({});
    const asked = await client.responses.create({
      model: 'oc/gpt-4o-mini',
      conversation: conversation.id,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Read this.' }, { type: 'input_file', file_id: file.id }] }],
    });
    expect(asked.status).toBe('completed');
    const items = (await client.conversations.items.list(conversation.id, { order: 'asc' })).data as unknown as Array<{ content?: Array<Record<string, unknown>> }>;
    const kept = JSON.stringify(items);
    expect(kept).not.toContain(Buffer.from(text).toString('base64'));
    expect(items[0].content?.[1]).toMatchObject({ type: 'input_file', file_id: file.id });
    // The next turn still gives the model the file, inline, as it did the first.
    const before = chat.requests.length;
    await client.responses.create({ model: 'oc/gpt-4o-mini', conversation: conversation.id, input: 'And again?' });
    const sent = JSON.stringify(chat.requests.slice(before).map((request) => request.json));
    expect(sent).toContain(Buffer.from(text).toString('base64'));
    expect(sent).not.toContain(file.id);
    // Deleted, the file is gone from the conversation's later turns too: the gateway answers the turn
    // itself (404 file_not_found naming the id), streamed or not, rather than sending its id upstream
    // as if it were the upstream's own file (before: whatever the upstream made of an id it never issued).
    await client.files.delete(file.id);
    const afterDelete = chat.requests.length + responses.requests.length;
    for (const [model, stream] of [['oc/gpt-4o-mini', false], ['or/gpt-5', false], ['oc/gpt-4o-mini', true]] as const) {
      const failed = await (stream ? client.responses.create({ model, conversation: conversation.id, input: 'Once more?', stream: true }) : client.responses.create({ model, conversation: conversation.id, input: 'Once more?' })).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(OpenAI.NotFoundError);
      const error = (failed as InstanceType<typeof OpenAI.NotFoundError>).error as { code?: string; message?: string };
      expect(error.code).toBe('file_not_found');
      expect(error.message).toContain(file.id);
      expect(error.message).toContain('was deleted');
    }
    expect(chat.requests.length + responses.requests.length).toBe(afterDelete);
    // The refused turns added nothing: the conversation holds the two answered turns.
    expect((await client.conversations.items.list(conversation.id, { order: 'asc' })).data).toHaveLength(4);
  });

  it('store: false still adds the turn (the response itself is not kept)', async () => {
    const conversation = await client.conversations.create({});
    const answer = await client.responses.create({ model: 'mock/echo', input: 'kept in the conversation', conversation: conversation.id, store: false });
    expect(answer.output_text).toBe('kept in the conversation');
    const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
    expect(texts(items.data as never)).toEqual(['user: kept in the conversation', 'assistant: kept in the conversation']);
    await expect(client.responses.retrieve(answer.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('the input token count counts the conversation\'s items too; an id the account does not have is the same 404', async () => {
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'word '.repeat(200) }] });
    const count = async (body: Record<string, unknown>) => {
      const answer = await fetch(`${gw.url}/v1/responses/input_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${(client as unknown as { apiKey: string }).apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', input: 'hi', ...body }),
      });
      return { status: answer.status, json: (await answer.json()) as { input_tokens?: number; error?: { param?: string } } };
    };
    const alone = await count({});
    const withHistory = await count({ conversation: conversation.id });
    expect(alone.status).toBe(200);
    expect(withHistory.status).toBe(200);
    expect(withHistory.json.input_tokens! - alone.json.input_tokens!).toBeGreaterThanOrEqual(200);
    const missing = await count({ conversation: 'conv_abc123' });
    expect(missing.status).toBe(404);
    expect(missing.json.error?.param).toBe('conversation');
  });

  it('a batch line naming a conversation is a 422 in its error file (its answer is not kept, so it could not be added); the other lines run', async () => {
    const conversation = await client.conversations.create({});
    const line = (id: string, extra: Record<string, unknown>) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/responses', body: { model: 'mock/echo', input: id, ...extra } });
    const input = await client.files.create({ file: await toFile(Buffer.from([line('with', { conversation: conversation.id }), line('without', {})].join('\n')), 'in.jsonl'), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/responses', completion_window: '24h' });
    const batch = await until('the batch to end', async () => {
      const b = await client.batches.retrieve(created.id);
      return ['completed', 'failed', 'expired', 'cancelled'].includes(b.status) ? b : undefined;
    });
    expect(batch.status).toBe('completed');
    const lines = async (id: string | null | undefined) => (id ? (await (await client.files.content(id)).text()).trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; response: { status_code: number; body: Record<string, any> } }) : []);
    const all = [...(await lines(batch.output_file_id)), ...(await lines(batch.error_file_id))];
    const by = Object.fromEntries(all.map((l) => [l.custom_id, l.response]));
    expect(by.without.status_code).toBe(200);
    expect(by.with.status_code).toBe(422);
    expect(JSON.stringify(by.with.body)).toContain('conversation');
    expect((await client.conversations.items.list(conversation.id)).data).toEqual([]);
  });

  it('a failed response adds nothing to the conversation', async () => {
    const conversation = await client.conversations.create({});
    const error = await client.responses.create({ model: 'or/no-such-model', input: 'hi', conversation: conversation.id }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    for (const stream of [false, true]) {
      const failed = await client.responses.create({ model: 'broken/echo', input: 'hi', conversation: conversation.id, stream }).catch((thrown: unknown) => thrown);
      expect(failed).toBeInstanceOf(OpenAI.APIError);
    }
    expect((await client.conversations.items.list(conversation.id)).data).toEqual([]);
  });

  it("the Agents SDK: OpenAIConversationsSession keeps a run's history over two turns, and run(…, { conversationId }) has the gateway keep it", async () => {
    await ensureTestClients();
    process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
    const sdk = await clientModule('@openai/agents');
    const { default: SdkOpenAI } = await clientModule('openai');
    sdk.setTracingDisabled(true);
    const sdkClient = new SdkOpenAI({ baseURL: `${gw.url}/v1`, apiKey: (client as unknown as { apiKey: string }).apiKey, maxRetries: 0 });
    sdk.setDefaultOpenAIClient(sdkClient);
    sdk.setOpenAIAPI('responses');
    for (const [model, upstream] of [
      ['oc/gpt-4o-mini', chat],
      ['or/gpt-5', responses],
    ] as const) {
      const session = new sdk.OpenAIConversationsSession({ client: sdkClient });
      const agent = new sdk.Agent({ name: 'Assistant', instructions: 'Answer briefly.', model });
      const first = await sdk.run(agent, 'Remember the word "tangerine".', { session });
      expect(first.finalOutput).toBe(FINAL);
      const before = upstream.requests.length;
      const second = await sdk.run(agent, 'Which word did I ask you to remember?', { session });
      expect(second.finalOutput).toBe(FINAL);
      expect(upstream.rejections).toEqual([]);
      const sent = JSON.stringify(upstream.requests.slice(before).map((r) => r.json));
      expect(sent).toContain('tangerine');
      const id = await session.getSessionId();
      expect(id).toMatch(/^conv_/);
      const items = await client.conversations.items.list(id, { order: 'asc' });
      expect(texts(items.data as never)).toEqual([
        'user: Remember the word "tangerine".',
        `assistant: ${FINAL}`,
        'user: Which word did I ask you to remember?',
        `assistant: ${FINAL}`,
      ]);
      await session.clearSession();
      await expect(client.conversations.retrieve(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);

      // run(…, { conversationId }): the SDK sends only the new input with `conversation`; the gateway keeps the history.
      const { id: conversationId } = await client.conversations.create({});
      await sdk.run(agent, 'My favourite colour is teal.', { conversationId });
      const mark = upstream.requests.length;
      const next = await sdk.run(agent, 'What is my favourite colour?', { conversationId });
      expect(next.finalOutput).toBe(FINAL);
      expect(JSON.stringify(upstream.requests.slice(mark).map((r) => r.json))).toContain('teal');
      const kept = await client.conversations.items.list(conversationId, { order: 'asc' });
      expect(texts(kept.data as never)).toEqual(['user: My favourite colour is teal.', `assistant: ${FINAL}`, 'user: What is my favourite colour?', `assistant: ${FINAL}`]);
    }
  }, 120_000);

  it('the Agents SDK with a function tool and { conversationId }: the call, its output and the answer are kept, and the next turn goes upstream with them', async () => {
    await ensureTestClients();
    const sdk = await clientModule('@openai/agents');
    const z = await clientModule('zod');
    const { default: SdkOpenAI } = await clientModule('openai');
    sdk.setTracingDisabled(true);
    const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);
    const toolChat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    const toolResponses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    const dir = tempDir();
    const tools = await spawnGateway({
      config: {
        providers: {
          tr: { plugin: 'openai', baseURL: `${toolResponses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          tc: { plugin: 'openai', baseURL: `${toolChat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
        },
      },
      dataDir: path.join(dir, 'data'),
    });
    try {
      const sdkClient = new SdkOpenAI({ baseURL: `${tools.url}/v1`, apiKey: tools.key, maxRetries: 0 });
      // Its own provider: the default one keeps the client it was first given (the other gateway's).
      const runner = new sdk.Runner({ modelProvider: new sdk.OpenAIProvider({ openAIClient: sdkClient, useResponses: true }) });
      const lookup = sdk.tool({ name: 'lookup', description: 'Weather of a city', parameters: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` });
      for (const [model, upstream] of [
        ['tc/gpt-4o-mini', toolChat],
        ['tr/gpt-5', toolResponses],
      ] as const) {
        const agent = new sdk.Agent({ name: 'Weather', instructions: 'Use the lookup tool.', model, tools: [lookup] });
        const { id: conversationId } = await sdkClient.conversations.create({});
        expect((await runner.run(agent, 'Weather in Paris?', { conversationId })).finalOutput).toBe(FINAL);
        const kept = (await sdkClient.conversations.items.list(conversationId, { order: 'asc' })).data.map((item: { type: string }) => item.type);
        expect(kept).toContain('function_call');
        expect(kept).toContain('function_call_output');
        const mark = upstream.requests.length;
        expect((await runner.run(agent, 'And tomorrow?', { conversationId })).finalOutput).toBe(FINAL);
        expect(upstream.rejections).toEqual([]);
        const sent = JSON.stringify(upstream.requests.slice(mark).map((r) => r.json));
        for (const text of ['Weather in Paris?', '18°C in Paris', 'And tomorrow?']) expect(sent).toContain(text);
      }
    } finally {
      await tools.stop();
      await toolChat.close();
      await toolResponses.close();
    }
  }, 120_000);

  it('a prompt template (prompt.id) goes to an OpenAI Responses upstream, without input too; converted, it is a 422 naming it, not dropped', async () => {
    const prompt = { id: 'pmpt_abc123', variables: { city: 'Paris' } };
    const answer = await client.responses.create({ model: 'or/gpt-5', prompt });
    expect(answer.status).toBe('completed');
    expect(responses.rejections).toEqual([]);
    expect(responses.requests.at(-1)!.json).toMatchObject({ model: 'gpt-5', prompt });
    const before = responses.requests.length;
    const error = await client.responses.create({ model: 'mock/echo', prompt, input: 'hi' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as Error).message).toContain("Invalid parameter 'prompt': is a prompt template of an OpenAI organization");
    expect(responses.requests.length).toBe(before);
    // Its input token count agrees: the same refusal in the same envelope (before: a 200 counting without the template).
    const counted = await client.responses.inputTokens.count({ model: 'mock/echo', prompt, input: 'hi' } as never).catch((thrown: unknown) => thrown);
    expect(counted).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    const { request_id: _a, ...refused } = (error as InstanceType<typeof OpenAI.APIError>).error as Record<string, unknown>;
    const { request_id: _b, ...countRefused } = (counted as InstanceType<typeof OpenAI.APIError>).error as Record<string, unknown>;
    expect(countRefused).toEqual(refused);
    expect((await client.responses.inputTokens.count({ model: 'or/gpt-5', prompt, input: 'hi' } as never)).input_tokens).toBeGreaterThan(0);
  });
});
