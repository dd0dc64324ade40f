/**
 * POST /v1/embeddings (issue 24) through the real gateway with the OpenAI SDK: deterministic
 * vectors from the offline `mock`, the `openai` plugin forwarding to an upstream with its own
 * model id, usage in OpenAI's shape, errors in its envelope; `input` as text or token ids; and
 * batches whose lines are `url: "/v1/embeddings"` (files.create + batches.create).
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** The inputs of an OpenAI embeddings body: a string, strings, one token array or token arrays. */
function inputsOf(body: unknown): unknown[] {
  const input = (body as { input?: unknown }).input;
  if (!Array.isArray(input)) return [input];
  return input.length > 0 && typeof input[0] === 'number' ? [input] : input;
}

describe('POST /v1/embeddings', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.path === '/v1/embeddings'
        ? {
            json: {
              object: 'list',
              // One vector per input, as OpenAI answers (a single token array is one input).
              data: inputsOf(request.json).map((_, index) => ({ object: 'embedding', index, embedding: [0.6, 0.8] })),
              model: 'text-embedding-3-small',
              usage: { prompt_tokens: 7, total_tokens: 7 },
            },
          }
        : { status: 404, json: { error: { message: 'no' } } },
    );
    gw = await spawnGateway({
      config: {
        providers: {
          mock: { plugin: 'mock' },
          oai: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['text-embedding-3-small', 'gpt-4o-mini'] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('mock: deterministic unit vectors, 1536 dims by default, `dimensions` honoured, usage counted', async () => {
    const one = await openai.embeddings.create({ model: 'mock/embed', input: ['hello world', 'another text'] });
    const two = await openai.embeddings.create({ model: 'mock/embed', input: 'hello world' });
    expect(one.data).toHaveLength(2);
    expect(one.data[0].embedding).toHaveLength(1536);
    expect(two.data[0].embedding).toEqual(one.data[0].embedding);
    expect(one.data[1].embedding).not.toEqual(one.data[0].embedding);
    const norm = Math.sqrt(one.data[0].embedding.reduce((sum, v) => sum + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
    expect(one.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(one.model).toBe('mock/embed');
    const small = await openai.embeddings.create({ model: 'mock/embed', input: 'hello world', dimensions: 8 });
    expect(small.data[0].embedding).toHaveLength(8);
  });

  it('openai plugin: the body goes upstream with its model id, the answer comes back', async () => {
    const result = await openai.embeddings.create({ model: 'oai/text-embedding-3-small', input: 'hi', encoding_format: 'float' });
    expect(result.data[0].embedding).toEqual([0.6, 0.8]);
    expect(result.usage.prompt_tokens).toBe(7);
    const sent = upstream.requests.find((r) => r.path === '/v1/embeddings')!;
    expect(sent.json).toEqual({ model: 'text-embedding-3-small', input: 'hi', encoding_format: 'float' });
    expect(sent.headers.authorization).toBe('Bearer x');
  });

  it('a chat model, a missing input: errors in the OpenAI envelope, nothing sent upstream', async () => {
    const before = upstream.requests.length;
    await expect(openai.embeddings.create({ model: 'oai/gpt-4o-mini', input: 'hi' })).rejects.toMatchObject({ status: 400 });
    await expect(openai.embeddings.create({ model: 'mock/embed', input: [] as string[] })).rejects.toMatchObject({ status: 422 });
    expect(upstream.requests.length).toBe(before);
  });

  it('token ids: one token array or several, deterministic per ids, billed by their length; forwarded as sent', async () => {
    const one = await openai.embeddings.create({ model: 'mock/embed', input: [1, 2, 3] });
    expect(one.data).toHaveLength(1);
    expect(one.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const many = await openai.embeddings.create({ model: 'mock/embed', input: [[1, 2, 3], [4, 5]] });
    expect(many.data.map((d) => d.index)).toEqual([0, 1]);
    expect(many.data[0].embedding).toEqual(one.data[0].embedding);
    expect(many.data[1].embedding).not.toEqual(one.data[0].embedding);
    expect(many.usage.prompt_tokens).toBe(5);
    const text = await openai.embeddings.create({ model: 'mock/embed', input: '1,2,3' });
    expect(text.data[0].embedding).not.toEqual(one.data[0].embedding);
    await openai.embeddings.create({ model: 'oai/text-embedding-3-small', input: [[1, 2], [3]] });
    // The SDK adds encoding_format: base64; the token arrays go as they are.
    expect(upstream.requests.at(-1)!.json).toEqual({ model: 'text-embedding-3-small', input: [[1, 2], [3]], encoding_format: 'base64' });
    // Neither negative ids nor a mix of ids and text.
    await expect(openai.embeddings.create({ model: 'mock/embed', input: [1, -2] })).rejects.toMatchObject({ status: 422 });
    await expect(openai.embeddings.create({ model: 'mock/embed', input: [1, 'a'] as unknown as number[] })).rejects.toMatchObject({ status: 422 });
  });

  it('batches of /v1/embeddings lines: run on mock and through the openai plugin, results in OpenAI output lines, a bad line fails alone', async () => {
    const lines = [
      { custom_id: 'text', method: 'POST', url: '/v1/embeddings', body: { model: 'mock/embed', input: 'hello world', dimensions: 4 } },
      { custom_id: 'tokens', method: 'POST', url: '/v1/embeddings', body: { model: 'mock/embed', input: [[1, 2, 3], [4]], dimensions: 4 } },
      { custom_id: 'upstream', method: 'POST', url: '/v1/embeddings', body: { model: 'oai/text-embedding-3-small', input: ['a', 'b'] } },
      { custom_id: 'empty', method: 'POST', url: '/v1/embeddings', body: { model: 'mock/embed', input: [] } },
    ];
    const file = await openai.files.create({ file: await toFile(Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n') + '\n'), 'embed.jsonl'), purpose: 'batch' });
    const created = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    expect(created.endpoint).toBe('/v1/embeddings');
    let batch = created;
    for (let i = 0; i < 400 && !['completed', 'failed', 'expired', 'cancelled'].includes(batch.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      batch = await openai.batches.retrieve(created.id);
    }
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 4, completed: 3, failed: 1 });
    const read = async (id: string) => (await (await openai.files.content(id)).text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const out = Object.fromEntries((await read(batch.output_file_id!)).map((line) => [line.custom_id, line]));
    expect(out.text.response).toMatchObject({ status_code: 200, body: { object: 'list', model: 'mock/embed', usage: { prompt_tokens: 3 } } });
    // The same vector as the route's (which the SDK fetched as base64 float32: equal to float32 precision).
    const live = (await openai.embeddings.create({ model: 'mock/embed', input: 'hello world', dimensions: 4 })).data[0].embedding;
    (out.text.response.body.data[0].embedding as number[]).forEach((value, i) => expect(value).toBeCloseTo(live[i]!, 6));
    expect(out.tokens.response.body.data).toHaveLength(2);
    expect(out.tokens.response.body.usage.prompt_tokens).toBe(4);
    expect(out.upstream.response.body).toMatchObject({ model: 'oai/text-embedding-3-small', usage: { prompt_tokens: 7 } });
    expect(upstream.requests.some((r) => r.path === '/v1/embeddings' && JSON.stringify(r.json) === JSON.stringify({ model: 'text-embedding-3-small', input: ['a', 'b'] }))).toBe(true);
    const errors = await read(batch.error_file_id!);
    expect(errors.map((line) => [line.custom_id, line.response.status_code, line.error.code])).toEqual([['empty', 422, 'validation_error']]);
  });
});
