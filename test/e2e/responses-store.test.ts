import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** A Responses upstream that gives every answer the same id, as a provider with deterministic ids would. */
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/matrix/responses');
const UPSTREAM_ID = 'resp_68b0mx01text';

function outputText(response: { output: ReadonlyArray<{ type: string; content?: unknown }> }): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? (item.content as Array<{ text?: string }>) : []))
    .map((part) => part.text ?? '')
    .join('');
}

async function status(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}

describe('stored Responses: ids minted by the gateway, read by owner', () => {
  let fake: FakeUpstream;
  let gw: SpawnedGateway;
  let alice: OpenAI;
  let bob: OpenAI;

  beforeAll(async () => {
    const json = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'text.json'), 'utf8')) as { id: string };
    const sse = fs.readFileSync(path.join(FIXTURES, 'text.sse.txt'), 'utf8');
    expect(json.id).toBe(UPSTREAM_ID);
    fake = await startFakeUpstream((request) => (request.json?.stream ? { headers: { 'content-type': 'text/event-stream' }, sse: [sse] } : { json }));
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        mock: { plugin: 'mock' },
        r: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'up-key', formats: ['responses'], models: ['gpt-resp'] },
      },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    const keys: string[] = [];
    for (const email of ['alice@example.test', 'bob@example.test']) {
      expect((await cli(['accounts', 'create', '--email', email, '--credits', '1000', '--tier', 'enterprise'])).exitCode).toBe(0);
      const created = await cli(['keys', 'create', '--account', email, '--json']);
      keys.push((JSON.parse(String(created.stdout)) as { key: string }).key);
    }
    gw = await spawnGateway({ configFile, dataDir });
    alice = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[0], maxRetries: 0, timeout: 10_000 });
    bob = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys[1], maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });

  describe.each([
    { label: 'mock (converted from Chat)', model: 'mock/echo' },
    { label: 'a Responses upstream (passthrough)', model: 'r/gpt-resp' },
  ])('$label', ({ model }) => {
    describe.each([{ stream: false }, { stream: true }])('stream: $stream', ({ stream }) => {
      const create = async (client: OpenAI, input: OpenAI.Responses.ResponseCreateParams['input'], previous?: string) => {
        const params = { model, input, ...(previous ? { previous_response_id: previous } : {}) };
        return stream ? client.responses.stream(params).finalResponse() : client.responses.create(params);
      };

      it('two accounts sending the same prompt keep their own stored responses; neither reads the other', async () => {
        const a = await create(alice, 'Hi');
        const b = await create(bob, 'Hi');
        expect(a.id).toMatch(/^resp_[0-9a-f]{48}$/);
        expect(b.id).toMatch(/^resp_[0-9a-f]{48}$/);
        expect(a.id).not.toBe(b.id);
        expect(a.id).not.toBe(UPSTREAM_ID);

        // Each owner reads its own, by GET and through previous_response_id.
        const storedA = await alice.responses.retrieve(a.id);
        expect(storedA.id).toBe(a.id);
        expect(outputText(storedA)).toBe(outputText(a));
        // GET returns the items the client got, with their ids (a passthrough's are the upstream's).
        expect(storedA.output.map((item) => [item.type, item.id])).toEqual(a.output.map((item) => [item.type, item.id]));
        expect((await bob.responses.retrieve(b.id)).id).toBe(b.id);
        const followUp = await create(alice, 'And again?', a.id);
        expect(followUp.id).not.toBe(a.id);
        // The answer names the response it followed, as OpenAI's does (the upstream only got the history).
        expect(followUp.previous_response_id).toBe(a.id);
        expect(a.previous_response_id).toBeNull();
        expect((await bob.responses.retrieve(followUp.id).catch((e: unknown) => e)) as { status?: number }).toMatchObject({ status: 404 });

        // The other account's ids are unknown ids: 404 for GET, previous_response_id and DELETE.
        expect(await status(bob.responses.retrieve(a.id))).toBe(404);
        expect(await status(alice.responses.retrieve(b.id))).toBe(404);
        expect(await status(create(bob, 'Hi', a.id))).toBe(404);
        expect(await status(bob.responses.delete(a.id))).toBe(404);
        // Only a background response can be cancelled (OpenAI: 400); another account's is unknown.
        const refused = await alice.responses.cancel(a.id).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
        expect(refused?.status).toBe(400);
        expect(refused?.error).toMatchObject({ code: 'bad_request', type: 'invalid_request_error' });
        expect(await status(bob.responses.cancel(a.id))).toBe(404);
        expect((await alice.responses.retrieve(a.id)).id).toBe(a.id);
      });

      it('inputItems.list pages through the input a response was made from (its history too), newest first by default', async () => {
        const first = await create(alice, 'Hi');
        const next = await create(alice, [{ role: 'user', content: 'And again?' }], first.id);
        const text = (item: Record<string, any>) => (item.content as Array<{ text?: string }>).map((part) => part.text).join('');
        const all = await alice.responses.inputItems.list(next.id, { order: 'asc' });
        expect(all.data.map((item: Record<string, any>) => [item.type, item.role, text(item)])).toEqual([
          ['message', 'user', 'Hi'],
          ['message', 'assistant', outputText(first)],
          ['message', 'user', 'And again?'],
        ]);
        expect((all.data[0] as Record<string, any>).content).toEqual([{ type: 'input_text', text: 'Hi' }]);
        const ids = all.data.map((item) => item.id);
        expect(new Set(ids).size).toBe(3);
        expect(all.has_more).toBe(false);
        // The default order is desc; the SDK's auto-pagination follows has_more and after.
        const page = await alice.responses.inputItems.list(next.id, { limit: 2 });
        expect(page.data.map((item) => item.id)).toEqual([ids[2], ids[1]]);
        expect(page.has_more).toBe(true);
        const raw = await fetch(`${gw.url}/v1/responses/${next.id}/input_items?limit=2`, { headers: { authorization: `Bearer ${alice.apiKey}` } });
        expect(await raw.json()).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
        const paged: string[] = [];
        for await (const item of alice.responses.inputItems.list(next.id, { limit: 1 })) paged.push(item.id!);
        expect(paged).toEqual([ids[2], ids[1], ids[0]]);
        // The same ids on every read.
        expect((await alice.responses.inputItems.list(next.id, { order: 'asc' })).data.map((item) => item.id)).toEqual(ids);
        // Another account's response is an unknown one; a limit past 100 is refused.
        expect(await status(bob.responses.inputItems.list(next.id))).toBe(404);
        expect(await status(alice.responses.inputItems.list(next.id, { limit: 101 }))).toBe(422);
        // An after that is no item of this response's input is a 404 naming it (as for a conversation's items), not an empty page.
        const unknown = await alice.responses.inputItems.list(next.id, { after: 'msg_not_here' }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
        expect(unknown?.status).toBe(404);
        expect(unknown?.error).toMatchObject({ code: 'not_found', param: 'after' });
        expect(unknown?.message).toContain('msg_not_here');
        expect(await status(alice.responses.inputItems.list(first.id, { after: ids[2]! }))).toBe(404);
        // The last item's id is still a cursor: an empty last page.
        expect((await alice.responses.inputItems.list(next.id, { after: ids[0]! })).data).toEqual([]);
      });

      it('responses.stream({ response_id }) replays a stored response as its stream; starting_after resumes after a number', async () => {
        const made = await create(alice, 'Hi');
        const stored = await alice.responses.retrieve(made.id);
        const seen: Array<[number, string]> = [];
        const replay = alice.responses.stream({ response_id: made.id });
        replay.on('event', (event) => seen.push([event.sequence_number, event.type]));
        const final = await replay.finalResponse();
        expect(final.id).toBe(made.id);
        expect(outputText(final)).toBe(outputText(stored));
        expect(final.output.map((item) => [item.type, item.id])).toEqual(stored.output.map((item) => [item.type, item.id]));
        expect(final.usage).toEqual(stored.usage);
        expect(seen.map(([number]) => number)).toEqual(seen.map((_, index) => index));
        expect(seen.slice(0, 4).map(([, type]) => type)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
        expect(seen.at(-1)?.[1]).toBe('response.completed');
        // The server sends only the events after starting_after.
        const rest: number[] = [];
        for await (const event of await alice.responses.retrieve(made.id, { stream: true, starting_after: 3 })) rest.push(event.sequence_number);
        expect(rest).toEqual(seen.slice(4).map(([number]) => number));
        expect(await status(bob.responses.retrieve(made.id, { stream: true }))).toBe(404);
      });

      it('the same account sending the same prompt twice gets two responses', async () => {
        const first = await create(alice, 'Hi');
        const second = await create(alice, 'Hi');
        expect(first.id).not.toBe(second.id);
        expect((await alice.responses.retrieve(first.id)).id).toBe(first.id);
        expect((await alice.responses.retrieve(second.id)).id).toBe(second.id);
        await alice.responses.delete(first.id);
        expect(await status(alice.responses.retrieve(first.id))).toBe(404);
        expect((await alice.responses.retrieve(second.id)).id).toBe(second.id);
      });
    });
  });

  it('with store: false nothing is kept', async () => {
    const response = await alice.responses.create({ model: 'mock/echo', input: 'Hi', store: false });
    expect(await status(alice.responses.retrieve(response.id))).toBe(404);
  });
});

describe('stored Responses expire after 30 days', () => {
  it('a response stored 31 days ago (by the clock) is deleted at the next start', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const first = await spawnGateway({ configFile, dataDir });
    const client = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: first.key!, maxRetries: 0 });
    const kept = await client.responses.create({ model: 'mock/echo', input: 'remember me' });
    const file = path.join(dataDir, 'responses', `${kept.id}.json`);
    expect(fs.existsSync(file)).toBe(true);
    expect(await first.stop()).toBe(0);

    const later = await spawnGateway({ configFile, dataDir, env: { GATEWAY_CLOCK_OFFSET_MS: String(31 * 24 * 3600 * 1000) } });
    await expect.poll(() => fs.existsSync(file), { timeout: 10_000 }).toBe(false);
    const again = new OpenAI({ baseURL: `${later.url}/v1`, apiKey: first.key!, maxRetries: 0 });
    expect(await status(again.responses.retrieve(kept.id))).toBe(404);
    expect(await later.stop()).toBe(0);
  });
});

describe('stored Responses are bounded by server.bodyLimits.inference', () => {
  const LIMIT = 8192;
  let fake: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  /** A Responses answer saying `text`. */
  const answer = (text: string) => ({
    id: 'resp_up', object: 'response', created_at: 1, status: 'completed', model: 'gpt-resp',
    output: [{ type: 'message', id: 'msg_up', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 },
  });

  beforeAll(async () => {
    // A long answer when asked for one, else a short one.
    // OpenAI answers a background request at once, queued, without output or usage.
    fake = await startFakeUpstream((request) =>
      request.json?.background === true
        ? { json: { ...answer(''), status: 'queued', background: true, output: [], usage: null } }
        : { json: answer(JSON.stringify(request.json?.input ?? '').includes('LONG') ? 'z'.repeat(9000) : 'ok') },
    );
    gw = await spawnGateway({
      config: {
        server: { bodyLimits: { inference: LIMIT } },
        providers: { r: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'up-key', formats: ['responses'], models: ['gpt-resp'] } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });

  it('a chain whose rebuilt history would pass the limit → 413 before the upstream is called; the chain so far stays', async () => {
    const one = await client.responses.create({ model: 'r/gpt-resp', input: 'a'.repeat(3000) });
    const two = await client.responses.create({ model: 'r/gpt-resp', input: 'b'.repeat(3000), previous_response_id: one.id });
    expect((await client.responses.retrieve(two.id)).id).toBe(two.id);
    expect(fake.requests).toHaveLength(2);
    const error = await client.responses
      .create({ model: 'r/gpt-resp', input: 'c'.repeat(3000), previous_response_id: two.id })
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(error?.status).toBe(413);
    expect((error?.error as { code?: string }).code).toBe('request_too_large');
    expect(error?.message).toContain(two.id);
    expect(error?.message).toContain(`${LIMIT} bytes`);
    expect(fake.requests).toHaveLength(2);
    // A shorter next turn on the same chain still works.
    const three = await client.responses.create({ model: 'r/gpt-resp', input: 'short', previous_response_id: two.id });
    expect(three.status).toBe('completed');
  });

  it('background: true is answered at once, finished: polling GET ends (a queued upstream answer was stored and read back queued for ever)', async () => {
    fake.requests.length = 0;
    const made = await client.responses.create({ model: 'r/gpt-resp', input: 'Hi', background: true });
    expect(made.status).toBe('completed');
    expect(made.output_text).toBe('ok');
    expect((await client.responses.retrieve(made.id)).status).toBe('completed');
    expect(fake.requests[0].json).not.toHaveProperty('background');
  });

  it('an answer that would make the record pass the limit is served but not stored, and the log says so', async () => {
    const big = await client.responses.create({ model: 'r/gpt-resp', input: 'LONG please' });
    expect(big.output_text).toHaveLength(9000);
    expect(await status(client.responses.retrieve(big.id))).toBe(404);
    const log = () => gw.stdout() + gw.stderr();
    await expect.poll(log).toContain('too large to store');
    expect(fs.readdirSync(path.join(gw.dataDir, 'responses')).some((name) => name.startsWith(big.id))).toBe(false);
  });
});
