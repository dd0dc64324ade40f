import path from 'node:path';
import { GoogleGenAI, JobState } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { anthropicBatchApi, openaiBatchApi, type FakeBatchApi } from '../helpers/fake-batch-apis.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/**
 * Native batches: the official openai client against the gateway, the gateway against fakes of
 * OpenAI's files/batches API and Anthropic's Message Batches API.
 */

const PRICING = { input: 1000, output: 3000 };
type Line = { custom_id: string; response: { status_code: number; body: Record<string, any> } | null; error: { code: string; message: string } | null };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(50);
    value = await read();
  }
  return value;
}

async function linesOf(client: OpenAI, fileId: string | null | undefined): Promise<Line[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
}

function chatLine(customId: string, model: string, text: string) {
  return { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: text }], max_tokens: 50 } };
}

describe('native batches (official openai client; fake OpenAI and Anthropic batch APIs)', () => {
  let oaApi: FakeBatchApi;
  let anApi: FakeBatchApi;
  let oa: FakeUpstream;
  let an: FakeUpstream;
  let plain: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let client: OpenAI;
  let apiKey: string;
  let configFile: string;
  let dataDir: string;

  const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', dataDir, ...args])).stdout);
  const upload = async (lines: unknown[]) => client.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'in.jsonl'), purpose: 'batch' });
  const finished = (id: string, ms?: number) =>
    until(`batch ${id} to end`, () => client.batches.retrieve(id), (b) => ['completed', 'failed', 'cancelled', 'expired'].includes(b.status), ms);
  const upstreamCalls = (fake: FakeUpstream, method: string, p: RegExp) => fake.requests.filter((r) => r.method === method && p.test(r.path));

  beforeAll(async () => {
    oaApi = openaiBatchApi({ pollsToEnd: 3 });
    anApi = anthropicBatchApi({ pollsToEnd: 3 });
    oa = await startFakeUpstream(oaApi.handler);
    an = await startFakeUpstream(anApi.handler);
    plain = await startFakeUpstream(openaiBatchApi().handler);
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        oa: { plugin: 'openai', baseURL: `${oa.url}/v1`, apiKey: 'sk-upstream-openai', batches: 'native', models: [{ id: 'gpt-up', pricing: PRICING }] },
        an: { plugin: 'anthropic', baseURL: an.url, apiKey: 'sk-upstream-anthropic', batches: 'native', models: [{ id: 'claude-up', pricing: PRICING }] },
        // Emulated (the default): same protocol, but its batch API is never used.
        plain: { plugin: 'openai', baseURL: `${plain.url}/v1`, apiKey: 'sk-upstream-openai', models: [{ id: 'gpt-plain', pricing: PRICING }] },
      },
      batches: { pollIntervalMs: 100 },
    });
    await cli(['accounts', 'create', '--email', 'n@example.com', '--tier', 'enterprise', '--credits', '1000000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'n@example.com', '--json'])) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    apiKey = key;
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await Promise.all([oa?.close(), an?.close(), plain?.close()]);
  });

  it('openai plugin: upstream file + batch, polled to completed; errored lines in the error file; the caller custom_ids; no live upstream calls', async () => {
    const lines = [chatLine('first', 'oa/gpt-up', 'hello one'), chatLine('x y/z', 'gpt-up', 'hello two'), chatLine('bad', 'oa/gpt-up', 'please FAIL'), chatLine('4', 'oa/gpt-up', 'hello four')];
    const input = await upload(lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const liveBefore = upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions/).length;
    const seen = new Set<string>();
    const done = await until(
      'completed',
      async () => {
        const b = await client.batches.retrieve(created.id);
        seen.add(b.status);
        return b;
      },
      (b) => ['completed', 'failed', 'cancelled', 'expired'].includes(b.status),
    );
    expect(done.status).toBe('completed');
    expect([...seen].every((s) => ['validating', 'in_progress', 'finalizing', 'completed'].includes(s))).toBe(true);
    expect(done.request_counts).toEqual({ total: 4, completed: 3, failed: 1 });
    expect(JSON.stringify(done)).not.toContain(oaApi.batches.keys().next().value);

    // What went upstream: one JSONL file (purpose batch) with model ids rewritten and the gateway's custom ids, one batch.
    const [upBatch] = [...oaApi.batches.values()];
    expect(upstreamCalls(oa, 'POST', /^\/v1\/files$/)).toHaveLength(1);
    expect(upstreamCalls(oa, 'POST', /^\/v1\/batches$/)[0].json).toMatchObject({ endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { gateway_batch_id: created.id } });
    expect(upBatch.requests.map((r) => r.body.model)).toEqual(['gpt-up', 'gpt-up', 'gpt-up', 'gpt-up']);
    expect(upBatch.requests.every((r) => /^[A-Za-z0-9_-]{1,64}$/.test(r.customId))).toBe(true);
    expect(upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions/).length).toBe(liveBefore);

    const out = await linesOf(client, done.output_file_id);
    expect(out.map((l) => l.custom_id).sort()).toEqual(['4', 'first', 'x y/z']);
    for (const l of out) {
      expect(l.response?.status_code).toBe(200);
      expect(l.response?.body.object).toBe('chat.completion');
      expect(l.error).toBeNull();
    }
    const errors = await linesOf(client, done.error_file_id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ custom_id: 'bad', response: { status_code: 400 }, error: { code: 'bad_request' } });
    expect(errors[0].error!.message).toContain('FAIL');
  }, 60_000);

  it('anthropic plugin: chat-completions lines converted to Messages params, results converted back; errored result in the error file', async () => {
    const lines = [chatLine('a', 'an/claude-up', 'bonjour'), chatLine('b', 'claude-up', 'do FAIL now'), chatLine('c', 'an/claude-up', 'hallo')];
    const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await finished(created.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const up = [...anApi.batches.values()].at(-1)!;
    expect(up.requests).toHaveLength(3);
    for (const r of up.requests) {
      expect(r.body).toMatchObject({ model: 'claude-up', max_tokens: 50 });
      expect(r.body.messages).toEqual([{ role: 'user', content: expect.anything() }]);
      expect(r.body.stream).toBeFalsy();
    }
    const out = await linesOf(client, done.output_file_id);
    expect(out.map((l) => l.custom_id).sort()).toEqual(['a', 'c']);
    const a = out.find((l) => l.custom_id === 'a')!;
    expect(a.response!.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'echo: bonjour' }, finish_reason: 'stop' }] });
    const errors = await linesOf(client, done.error_file_id);
    expect(errors).toMatchObject([{ custom_id: 'b', response: { status_code: 400 }, error: { code: 'bad_request' } }]);
  }, 60_000);

  it('anthropic plugin: a /v1/messages batch goes up as is (model rewritten) and comes back as Messages', async () => {
    const line = { custom_id: 'm1', method: 'POST', url: '/v1/messages', body: { model: 'an/claude-up', max_tokens: 20, messages: [{ role: 'user', content: 'hi there' }] } };
    const created = await client.batches.create({ input_file_id: (await upload([line])).id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    const done = await finished(created.id);
    expect(done.status).toBe('completed');
    const up = [...anApi.batches.values()].at(-1)!;
    expect(up.requests[0].body).toMatchObject({ model: 'claude-up', max_tokens: 20, messages: [{ role: 'user', content: 'hi there' }] });
    const [out] = await linesOf(client, done.output_file_id);
    expect(out.response!.body).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'echo: hi there' }] });
  }, 60_000);

  it("a Gemini batch (@google/genai's ai.batches) on the openai plugin: its lines go up as Chat requests without a Gemini body's model key, the answers come back as GenerateContentResponses in request order", async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw!.url, timeout: 20_000 } });
    const created = await ai.batches.create({ model: 'oa/gpt-up', src: [{ contents: 'hello gemini', config: { maxOutputTokens: 30 }, metadata: { key: 'g1' } }, { contents: 'hello again', metadata: { key: 'g2' } }] });
    const done = await until('the Gemini batch to end', () => ai.batches.get({ name: created.name! }), (b) => b.state !== JobState.JOB_STATE_PENDING && b.state !== JobState.JOB_STATE_RUNNING);
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const up = [...oaApi.batches.values()].at(-1)!;
    expect(up.requests).toHaveLength(2);
    expect(up.requests[0].body).toMatchObject({ model: 'gpt-up', max_tokens: 30, messages: [{ role: 'user', content: expect.anything() }] });
    expect(JSON.stringify(up.requests[0].body.messages)).toContain('hello gemini');
    const responses = done.dest?.inlinedResponses ?? [];
    expect(responses.map((r) => r.metadata?.key)).toEqual(['g1', 'g2']);
    expect(responses[0].response?.candidates?.[0]?.content?.parts?.[0]?.text).toContain('hello gemini');
    expect(responses[1].response?.candidates?.[0]?.content?.role).toBe('model');
  }, 60_000);

  it('a Gemini batch whose request names a file uploaded to the gateway (fileData) runs emulated: the live line carries the file inline', async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw!.url, timeout: 20_000 } });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const file = await ai.files.upload({ file: new Blob([Buffer.from(png, 'base64')]), config: { mimeType: 'image/png' } });
    const batches = oaApi.batches.size;
    const live = upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions$/).length;
    const created = await ai.batches.create({ model: 'oa/gpt-up', src: [{ contents: [{ role: 'user', parts: [{ fileData: { fileUri: file.uri!, mimeType: 'image/png' } }, { text: 'what is this' }] }], metadata: { key: 'f1' } }] });
    const done = await until('the Gemini batch to end', () => ai.batches.get({ name: created.name! }), (b) => b.state !== JobState.JOB_STATE_PENDING && b.state !== JobState.JOB_STATE_RUNNING);
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(oaApi.batches.size).toBe(batches);
    const calls = upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions$/);
    expect(calls.length).toBe(live + 1);
    expect(calls.at(-1)!.body).toContain(`data:image/png;base64,${png}`);
    expect(calls.at(-1)!.body).not.toContain(file.name!);
  }, 60_000);

  it("a line naming a file_id the gateway does not hold (the upstream's own upload) still runs natively, the id going up as written; one it holds runs emulated, inline", async () => {
    const own = { custom_id: 'u1', method: 'POST', url: '/v1/chat/completions', body: { model: 'oa/gpt-up', max_tokens: 20, messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-UpstreamOwn123' } }, { type: 'text', text: 'summarise' }] }] } };
    const batches = oaApi.batches.size;
    const created = await client.batches.create({ input_file_id: (await upload([own])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await finished(created.id)).status).toBe('completed');
    expect(oaApi.batches.size).toBe(batches + 1);
    expect(JSON.stringify([...oaApi.batches.values()].at(-1)!.requests[0].body.messages)).toContain('file-UpstreamOwn123');

    const pdf = await client.files.create({ file: await toFile(Buffer.from('%PDF-1.4 gateway-held'), 'held.pdf'), purpose: 'user_data' });
    const held = { ...own, custom_id: 'h1', body: { ...own.body, messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: pdf.id } }, { type: 'text', text: 'summarise' }] }] } };
    const live = upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions$/).length;
    const second = await client.batches.create({ input_file_id: (await upload([held])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await finished(second.id)).status).toBe('completed');
    expect(oaApi.batches.size).toBe(batches + 1);
    const calls = upstreamCalls(oa, 'POST', /^\/v1\/chat\/completions$/);
    expect(calls.length).toBe(live + 1);
    expect(calls.at(-1)!.body).toContain(Buffer.from('%PDF-1.4 gateway-held').toString('base64'));
    expect(calls.at(-1)!.body).not.toContain(pdf.id);
  }, 60_000);

  it('a tool name the upstream refuses goes up shortened and comes back in the result under the name the line gave', async () => {
    const long = `mcp__a-long-server-name__${'very_long_tool_name_'.repeat(5)}`;
    const line = { custom_id: 't1', method: 'POST', url: '/v1/messages', body: { model: 'oa/gpt-up', max_tokens: 20, tools: [{ name: long, input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'please CALL it' }] } };
    const created = await client.batches.create({ input_file_id: (await upload([line])).id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    const done = await finished(created.id);
    expect(done.status).toBe('completed');
    const up = [...oaApi.batches.values()].at(-1)!;
    const upName = String((up.requests[0].body.tools as Array<{ function: { name: string } }>)[0].function.name);
    expect(upName.length).toBeLessThanOrEqual(64);
    expect(upName).not.toBe(long);
    const [out] = await linesOf(client, done.output_file_id);
    expect(out.response!.body).toMatchObject({ type: 'message', stop_reason: 'tool_use', content: [{ type: 'tool_use', name: long }] });
  }, 60_000);

  it('cancel mid-run: the upstream is cancelled; finished lines kept, the rest reported as batch_cancelled', async () => {
    const held = openaiBatchApi({ hold: true });
    oa.setHandler(held.handler);
    try {
      const lines = Array.from({ length: 6 }, (_, i) => chatLine(`k${i}`, 'oa/gpt-up', `line ${i}`));
      const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await until('upstream polled', async () => [...held.batches.values()][0]?.polls ?? 0, (n) => n >= 2);
      const cancelling = await client.batches.cancel(created.id);
      expect(cancelling.status).toBe('cancelling');
      const done = await finished(created.id);
      expect(done.status).toBe('cancelled');
      expect(done.cancelled_at).toBeGreaterThan(0);
      expect(upstreamCalls(oa, 'POST', /^\/v1\/batches\/[^/]+\/cancel$/)).toHaveLength(1);
      const out = await linesOf(client, done.output_file_id);
      const errors = await linesOf(client, done.error_file_id);
      expect(out.map((l) => l.custom_id).sort()).toEqual(['k0', 'k1', 'k2']);
      expect(errors.map((l) => l.custom_id).sort()).toEqual(['k3', 'k4', 'k5']);
      for (const e of errors) expect(e).toMatchObject({ response: null, error: { code: 'batch_cancelled' } });
      expect(done.request_counts).toEqual({ total: 6, completed: 3, failed: 3 });
    } finally {
      oa.setHandler(oaApi.handler);
    }
  }, 60_000);

  it('anthropic cancel mid-run: canceled results become batch_cancelled lines', async () => {
    const held = anthropicBatchApi({ hold: true });
    an.setHandler(held.handler);
    try {
      const lines = Array.from({ length: 4 }, (_, i) => chatLine(`q${i}`, 'an/claude-up', `line ${i}`));
      const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await until('upstream polled', async () => [...held.batches.values()][0]?.polls ?? 0, (n) => n >= 1);
      await client.batches.cancel(created.id);
      const done = await finished(created.id);
      expect(done.status).toBe('cancelled');
      expect((await linesOf(client, done.output_file_id)).map((l) => l.custom_id).sort()).toEqual(['q0', 'q1']);
      expect((await linesOf(client, done.error_file_id)).map((l) => [l.custom_id, l.error?.code])).toEqual([
        ['q2', 'batch_cancelled'],
        ['q3', 'batch_cancelled'],
      ]);
    } finally {
      an.setHandler(anApi.handler);
    }
  }, 60_000);

  it('lines on more than one provider, or on a provider without batches: native, run emulated through live calls', async () => {
    const before = { oa: upstreamCalls(oa, 'POST', /^\/v1\/batches$/).length, plain: upstreamCalls(plain, 'POST', /^\/v1\/batches$/).length };
    const mixed = await client.batches.create({
      input_file_id: (await upload([chatLine('m1', 'oa/gpt-up', 'one'), chatLine('m2', 'plain/gpt-plain', 'two')])).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const onlyPlain = await client.batches.create({ input_file_id: (await upload([chatLine('p1', 'plain/gpt-plain', 'three')])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (const id of [mixed.id, onlyPlain.id]) expect((await finished(id)).status).toBe('completed');
    expect(upstreamCalls(oa, 'POST', /^\/v1\/batches$/).length).toBe(before.oa);
    expect(upstreamCalls(plain, 'POST', /^\/v1\/batches$/).length).toBe(before.plain);
    expect(upstreamCalls(plain, 'POST', /^\/v1\/chat\/completions$/).length).toBe(2);
  }, 60_000);

  it('restart mid-poll: kill -9 while the upstream batch runs; the restarted gateway resumes polling the same upstream batch', async () => {
    const held = anthropicBatchApi({ hold: true });
    an.setHandler(held.handler);
    try {
      const lines = Array.from({ length: 5 }, (_, i) => chatLine(`r${i}`, 'an/claude-up', `restart ${i}`));
      const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await until('upstream polled', async () => [...held.batches.values()][0]?.polls ?? 0, (n) => n >= 2);
      await gw!.kill();
      gw = await spawnGateway({ configFile, dataDir });
      client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: client.apiKey, maxRetries: 0 });
      const polls = [...held.batches.values()][0].polls;
      await until('polled again after the restart', async () => [...held.batches.values()][0].polls, (n) => n > polls, 45_000);
      held.release();
      const done = await finished(created.id, 30_000);
      expect(done.status).toBe('completed');
      expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
      expect(held.batches.size).toBe(1); // never submitted twice
      expect((await linesOf(client, done.output_file_id)).map((l) => l.custom_id).sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    } finally {
      an.setHandler(anApi.handler);
    }
  }, 90_000);

  it('kill -9 after the upstream accepted the batch but before its answer was recorded: the restarted gateway finds it (metadata) instead of submitting again', async () => {
    const slow = openaiBatchApi();
    // The upstream creates the batch at once but answers only after 4 s: the gateway is killed meanwhile.
    oa.setHandler(async (req, i) => {
      const reply = await slow.handler(req, i);
      return req.method === 'POST' && req.path === '/v1/batches' && slow.batches.size === 1 ? { delayMs: 4000, then: reply } : reply;
    });
    try {
      const lines = Array.from({ length: 3 }, (_, i) => chatLine(`s${i}`, 'oa/gpt-up', `submit ${i}`));
      const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await until('upstream batch created', async () => slow.batches.size, (n) => n === 1);
      await gw!.kill();
      gw = await spawnGateway({ configFile, dataDir });
      client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: client.apiKey, maxRetries: 0 });
      const done = await finished(created.id, 30_000);
      expect(done.status).toBe('completed');
      expect(slow.batches.size).toBe(1);
      expect(oa.requests.some((r) => r.method === 'GET' && r.path.startsWith('/v1/batches?'))).toBe(true);
      expect((await linesOf(client, done.output_file_id)).map((l) => l.custom_id).sort()).toEqual(['s0', 's1', 's2']);
    } finally {
      oa.setHandler(oaApi.handler);
    }
  }, 60_000);

  it('completion window shorter than the upstream one: when it passes the upstream is cancelled, the batch ends expired, unrun lines batch_expired', async () => {
    const held = openaiBatchApi({ hold: true });
    oa.setHandler(held.handler);
    try {
      const lines = Array.from({ length: 4 }, (_, i) => chatLine(`w${i}`, 'oa/gpt-up', `window ${i}`));
      const created = await client.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '2s' as never });
      const done = await finished(created.id);
      expect(done.status).toBe('expired');
      expect(done.expired_at).toBeGreaterThan(0);
      expect(held.batches.size).toBe(1);
      expect([...held.batches.values()][0].cancelRequested).toBe(true);
      expect((await linesOf(client, done.output_file_id)).map((l) => l.custom_id).sort()).toEqual(['w0', 'w1']);
      const errors = await linesOf(client, done.error_file_id);
      expect(errors.map((l) => [l.custom_id, l.error?.code]).sort()).toEqual([
        ['w2', 'batch_expired'],
        ['w3', 'batch_expired'],
      ]);
      expect(done.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
    } finally {
      oa.setHandler(oaApi.handler);
    }
  }, 60_000);

  it('an upstream that refuses the batch: failed, with its reason in errors.data and no upstream state names', async () => {
    oa.setHandler((req, i) =>
      req.method === 'POST' && req.path === '/v1/batches' ? { status: 400, json: { error: { message: 'Enqueued token limit reached for gpt-up.', type: 'invalid_request_error', param: null, code: 'token_limit_exceeded' } } } : oaApi.handler(req, i),
    );
    try {
      const created = await client.batches.create({ input_file_id: (await upload([chatLine('f1', 'oa/gpt-up', 'refused')])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const done = await finished(created.id);
      expect(done.status).toBe('failed');
      expect(done.failed_at).toBeGreaterThan(0);
      expect(done.errors?.data).toEqual([{ code: 'bad_request', message: expect.stringContaining('Enqueued token limit reached'), line: null, param: null }]);
    } finally {
      oa.setHandler(oaApi.handler);
    }
  }, 60_000);

  it('lines the caller cannot pay for fail before anything goes upstream (insufficient_balance); nothing is submitted', async () => {
    await cli(['accounts', 'create', '--email', 'broke@example.com', '--tier', 'enterprise', '--credits', '0']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'broke@example.com', '--json'])) as { key: string };
    const broke = new OpenAI({ baseURL: client.baseURL, apiKey: key, maxRetries: 0 });
    const before = upstreamCalls(oa, 'POST', /^\/v1\/(batches|files)$/).length;
    const input = await broke.files.create({ file: await toFile(Buffer.from(JSON.stringify(chatLine('z1', 'oa/gpt-up', 'no money'))), 'in.jsonl'), purpose: 'batch' });
    const created = await broke.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until('the batch to end', () => broke.batches.retrieve(created.id), (b) => ['completed', 'failed'].includes(b.status));
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 1, completed: 0, failed: 1 });
    expect(await linesOf(broke, done.error_file_id)).toMatchObject([{ custom_id: 'z1', response: null, error: { code: 'insufficient_balance' } }]);
    expect(upstreamCalls(oa, 'POST', /^\/v1\/(batches|files)$/).length).toBe(before);
  }, 60_000);

  it('the lines sent must fit the balance together: with credit for two lines of five, two go upstream and three fail insufficient_balance', async () => {
    const line = (id: string) => chatLine(id, 'oa/gpt-up', 'tight budget please');
    const account = async (email: string, credits: string) => {
      await cli(['accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', credits]);
      const { key } = JSON.parse(await cli(['keys', 'create', '--account', email, '--json'])) as { key: string };
      return new OpenAI({ baseURL: client.baseURL, apiKey: key, maxRetries: 0 });
    };
    const run = async (caller: OpenAI, ids: string[]) => {
      const input = await caller.files.create({ file: await toFile(Buffer.from(ids.map((id) => JSON.stringify(line(id))).join('\n')), 'in.jsonl'), purpose: 'batch' });
      const created = await caller.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      return until('the batch to end', () => caller.batches.retrieve(created.id), (b) => ['completed', 'failed'].includes(b.status));
    };
    // What one such line holds, as its refusal says.
    const probe = await account('probe@example.com', '0');
    const refused = (await linesOf(probe, (await run(probe, ['p'])).error_file_id))[0]!;
    const hold = Number(/needs up to ([\d.e-]+) credits/.exec(refused.error!.message)![1]);
    expect(hold).toBeGreaterThan(0);

    const tight = await account('tight@example.com', String(hold * 2.5));
    const before = new Set(oaApi.batches.keys());
    const done = await run(tight, ['t1', 't2', 't3', 't4', 't5']);
    const sent = [...oaApi.batches.values()].filter((b) => !before.has(b.id));
    // Before: each line was checked alone, so all five went up (and three were answered but never paid for).
    expect(sent.flatMap((b) => b.requests)).toHaveLength(2);
    expect(done.request_counts).toEqual({ total: 5, completed: 2, failed: 3 });
    const failed = await linesOf(tight, done.error_file_id);
    expect(failed.map((l) => [l.custom_id, l.error?.code])).toEqual([['t3', 'insufficient_balance'], ['t4', 'insufficient_balance'], ['t5', 'insufficient_balance']]);
  }, 60_000);

  it('billing: each succeeded line is charged batches.priceMultiplier × what the same request costs live; errored lines are not charged', async () => {
    // The same request live, through each plugin (the fakes answer both the same way).
    for (const model of ['oa/gpt-up', 'an/claude-up']) await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'price me' }], max_tokens: 50 });
    const created = await client.batches.create({
      input_file_id: (await upload([chatLine('p-oa', 'oa/gpt-up', 'price me'), chatLine('p-oa-2', 'oa/gpt-up', 'price me')])).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const createdAn = await client.batches.create({ input_file_id: (await upload([chatLine('p-an', 'an/claude-up', 'price me')])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (const id of [created.id, createdAn.id]) expect((await finished(id)).status).toBe('completed');
    await gw!.stop();
    gw = undefined;
    const ledger = readLedger(path.join(dataDir, 'usage.jsonl'));
    for (const [model, batchId, count] of [['oa/gpt-up', created.id, 2], ['an/claude-up', createdAn.id, 1]] as const) {
      const live = ledger.filter((l) => l.endpoint !== '/v1/batches' && l.model === model);
      expect(live).toHaveLength(1);
      expect(live[0].cost_credits).toBeGreaterThan(0);
      // A batch line's request id names its batch (the same id every time, so a resumed batch bills it once).
      const batched = ledger.filter((l) => l.endpoint === '/v1/batches' && l.request_id.startsWith(`${batchId}:`));
      expect(batched.length).toBe(count);
      for (const l of batched) expect(l).toMatchObject({ model, input_tokens: live[0].input_tokens, output_tokens: live[0].output_tokens });
      for (const l of batched) {
        expect(l.charged_credits).toBeCloseTo(live[0].cost_credits * 0.5, 6);
        expect(l.price_multiplier).toBe(0.5);
      }
    }
    // Every batch line billed once: one ledger line per succeeded line (errored, cancelled and unrun lines: none).
    const ids = ledger.filter((l) => l.endpoint === '/v1/batches').map((l) => l.request_id);
    expect(new Set(ids).size).toBe(ids.length);
    // 3 (openai) + 2 + 1 (anthropic) + 2 (gemini) + 1 (tool name) + 3 + 2 (cancelled ones' finished halves) + 5 (restart) + 3 (restart mid-submit) + 2 (expired: finished half) + 2 (the tight balance) + 3 (pricing); the mixed batches and the Gemini line naming a file ran emulated: + 3 + 1; the upstream's own file id (native) and a gateway-held one (emulated): + 1 + 1.
    expect(ids.length).toBe(3 + 2 + 1 + 2 + 1 + 3 + 2 + 5 + 3 + 2 + 2 + 3 + 3 + 1 + 1 + 1);
  }, 60_000);
});
