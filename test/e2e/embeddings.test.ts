/**
 * POST /v1/embeddings (issue 24) through the real gateway with the OpenAI SDK: deterministic
 * vectors from the offline `mock`, the `openai` plugin forwarding to an upstream with its own
 * model id, usage in OpenAI's shape, errors in its envelope.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('POST /v1/embeddings', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.path === '/v1/embeddings'
        ? { json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.6, 0.8] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 7, total_tokens: 7 } } }
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
});
