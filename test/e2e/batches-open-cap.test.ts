import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const ANSWER = { id: 'c', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };

// The batch routes are exempt from rate limits and a batch may be made again and again on one
// input file: one account could queue any number of batches (a 0-credit one too: its lines fail
// fast, each batch still a record the executor reads at every look for work and a result file
// written at its end). An account now has at most batches.maxOpenPerAccount batches not ended.
describe('batches not ended are bounded per account (batches.maxOpenPerAccount)', () => {
  let up: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    // Lines wait until the test lets them answer: the batches stay unfinished meanwhile.
    up = await startFakeUpstream(async () => {
      await released;
      return { json: ANSWER };
    });
    gw = await spawnGateway({
      config: {
        providers: { up: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: ['m1'] } },
        batches: { maxOpenPerAccount: 2 },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    release();
    await gw?.stop();
    await up?.close();
  });

  it('a third open batch is 429 quota_exceeded on /v1/batches and on Anthropic\'s face; once they end, more are taken', { timeout: 60_000 }, async () => {
    const line = JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'up/m1', messages: [{ role: 'user', content: 'hi' }] } });
    const file = await client.files.create({ file: await toFile(Buffer.from(line), 'in.jsonl'), purpose: 'batch' });
    const create = () => client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const first = await create();
    const second = await create();
    const refused = await create().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toContain('batches.maxOpenPerAccount');

    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
    const face = await anthropic.messages.batches.create({ requests: [{ custom_id: 'x', params: { model: 'up/m1', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } }] }).catch((error: unknown) => error);
    expect(face).toBeInstanceOf(Anthropic.APIError);
    expect((face as InstanceType<typeof Anthropic.APIError>).status).toBe(429);

    release();
    for (const id of [first.id, second.id]) {
      await until(`batch ${id} to complete`, async () => ((await client.batches.retrieve(id)).status === 'completed' ? true : undefined), 30_000);
    }
    expect((await create()).status).toBe('validating');
  });
});
