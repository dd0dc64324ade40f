import { afterEach, describe, expect, it } from 'vitest';
import { get, makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a cancel that arrives while the batch is being validated', () => {
  it('ends the batch cancelled with no line run (the move to in_progress does not undo it)', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: `x ${i}` }] } }));
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([lines.join('\n')]), 'in.jsonl');
    const file = (await (await gw.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string };

    // Hold the executor inside validation (its read of the input file) until the cancel is in.
    const files = gw.gateway.deps.store.files;
    const read = files.content.bind(files);
    let reading: () => void = () => {};
    const reached = new Promise<void>((resolve) => (reading = resolve));
    let letGo: () => void = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    files.content = async (accountId, id) => {
      if (id === file.id) {
        reading();
        await gate;
      }
      return read(accountId, id);
    };

    const created = (await (await gw.fetch('/v1/batches', post({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string };
    await reached;
    const cancel = (await (await gw.fetch(`/v1/batches/${created.id}/cancel`, post({}, key))).json()) as { status: string };
    expect(cancel.status).toBe('cancelling');
    letGo();

    let batch = { status: '', request_counts: { total: -1, completed: -1, failed: -1 }, output_file_id: 'x' as string | null, cancelled_at: null as number | null };
    for (let i = 0; i < 200 && !['completed', 'cancelled', 'failed'].includes(batch.status); i++) {
      await sleep(20);
      batch = (await (await gw.fetch(`/v1/batches/${created.id}`, get(key))).json()) as typeof batch;
    }
    expect(batch.status).toBe('cancelled');
    expect(batch.cancelled_at).not.toBeNull();
    expect(batch.request_counts).toEqual({ total: 20, completed: 0, failed: 0 });
    expect(batch.output_file_id).toBeNull();
  }, 30_000);
});
