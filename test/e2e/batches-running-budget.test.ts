import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const LINES = 6;
const PAD = 'p'.repeat(2_000);

function inputOf(batch: string): Buffer {
  const lines = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({ custom_id: `${batch}-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'up/m1', messages: [{ role: 'user', content: `batch=${batch} ${PAD}` }] } }),
  );
  return Buffer.from(`${lines.join('\n')}\n`);
}

// Each running batch holds its parsed input (measured: ~180 MB of RSS for a 41 MB file). The
// executor claimed every claimable batch at once, and a batch may be created again and again on
// one input file (no rate limit, no cap): ten batches on one 41 MB file took a gateway from 120 MB
// to 1.9 GB. Batches now run oldest first within batches.runningInputBytes of input, one always.
describe('batches run within batches.runningInputBytes of input at once', () => {
  let up: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;
  const size = inputOf('a').length;

  beforeAll(async () => {
    // A little latency per answer, so batches that ran side by side would interleave.
    up = await startFakeUpstream(() => ({ delayMs: 200, then: { json: { id: 'c', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } } } }));
    gw = await spawnGateway({
      config: {
        providers: { up: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: ['m1'] } },
        // Room for one of these inputs and a half: one batch at a time.
        batches: { runningInputBytes: Math.floor(size * 1.5) },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await up?.close();
  });

  it('three batches past the budget run one after another, oldest first, and all complete', { timeout: 60_000 }, async () => {
    const files = [];
    for (const name of ['a', 'b', 'c']) files.push(await client.files.create({ file: await toFile(inputOf(name), `${name}.jsonl`), purpose: 'batch' }));
    const ids: string[] = [];
    for (const file of files) ids.push((await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    for (const id of ids) {
      await until(`batch ${id} to complete`, async () => ((await client.batches.retrieve(id)).status === 'completed' ? true : undefined), 30_000);
    }
    const order = up.requests.map((r) => /batch=(\w)/.exec(r.body)![1]).join('');
    // Before: the three ran side by side (their lines interleaved upstream).
    expect(order).toBe('a'.repeat(LINES) + 'b'.repeat(LINES) + 'c'.repeat(LINES));
    for (const id of ids) expect((await client.batches.retrieve(id)).request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
  });
});
