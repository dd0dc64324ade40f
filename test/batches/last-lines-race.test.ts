import { afterEach, describe, expect, it } from 'vitest';
import { get, makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the last lines of a batch, with a store that answers slowly (as a database does)', () => {
  it('are each taken by one worker: no worker runs past the end, the run ends without an error', async () => {
    gw = await makeGateway({ batches: { concurrency: 4 } });
    const errors: string[] = [];
    const log = gw.gateway.deps.log;
    log.error = (message: string, fields?: Record<string, unknown>) => void errors.push(`${message} ${JSON.stringify(fields ?? {})}`);
    // Every read of a batch record takes a few ms, as a round trip to PostgreSQL does: the
    // workers' between-lines check then overlaps at the end of the batch.
    const batches = gw.gateway.deps.store.batches;
    const read = batches.get.bind(batches);
    batches.get = async (id) => {
      await sleep(5);
      return read(id);
    };
    const { key } = await gw.account();
    for (let round = 0; round < 3; round++) {
      const lines = Array.from({ length: 9 }, (_, i) => JSON.stringify({ custom_id: `r${round}-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: `x ${i}` }] } }));
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([lines.join('\n')]), 'in.jsonl');
      const file = (await (await gw.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string };
      const created = (await (await gw.fetch('/v1/batches', post({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string };
      let batch = { status: '', request_counts: { total: -1, completed: -1, failed: -1 } };
      for (let i = 0; i < 400 && batch.status !== 'completed'; i++) {
        await sleep(10);
        batch = (await (await gw.fetch(`/v1/batches/${created.id}`, get(key))).json()) as typeof batch;
      }
      expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 9, completed: 9, failed: 0 } });
    }
    expect(errors).toEqual([]);
  }, 60_000);
});
