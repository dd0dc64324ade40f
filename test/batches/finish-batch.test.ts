import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cancelBatch, finishBatch, resultFileIds } from '../../src/batches/index.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import type { BatchLineRecord, BatchRecord } from '../../src/store/types.ts';

const clock = { now: () => Date.UTC(2026, 10, 24, 1, 0, 0) };
let store: FileStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function batchRecord(patch: Partial<BatchRecord> = {}): BatchRecord {
  return {
    id: 'batch_abc123',
    accountId: 'acct_1',
    keyId: null,
    endpoint: '/v1/chat/completions',
    input_file_id: 'file-in',
    completion_window: '24h',
    status: 'in_progress',
    output_file_id: null,
    error_file_id: null,
    errors: null,
    created_at: 1,
    in_progress_at: 1,
    expires_at: 4_000_000_000,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 4, completed: 0, failed: 0 },
    metadata: null,
    mode: 'emulated',
    native: null,
    lease: null,
    ...patch,
  };
}

const line = (index: number, outcome: 'completed' | 'failed'): BatchLineRecord => ({ batchId: 'batch_abc123', index, customId: `c${index}`, outcome, result: JSON.stringify({ custom_id: `c${index}` }) });

let dataDir = '';
async function open() {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-finish-'));
  store = await FileStore.open(dataDir, { flushDelayMs: 1 });
  return store;
}

describe('finishing a batch', () => {
  it('done again after a crash cut it short, it replaces its two files instead of leaving the first ones behind', async () => {
    const s = await open();
    await s.batches.create(batchRecord());
    const save = async () => {
      for (const l of [line(0, 'completed'), line(1, 'failed'), line(2, 'completed')]) await s.batches.saveLine(l);
    };
    await save();
    const first = await finishBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!, { status: 'completed' });
    expect(first).toMatchObject({ status: 'completed', output_file_id: resultFileIds('batch_abc123').output, error_file_id: resultFileIds('batch_abc123').error, request_counts: { total: 4, completed: 2, failed: 1 } });
    // The crash: the files were written but the record and the progress are as before.
    await s.batches.update('batch_abc123', { status: 'finalizing', output_file_id: null, error_file_id: null });
    await save();
    const again = await finishBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!, { status: 'completed' });
    expect(again.output_file_id).toBe(first.output_file_id);
    const files = await s.files.list({ accountId: 'acct_1', limit: 100 });
    expect(files.data.map((f) => f.id).sort()).toEqual([first.error_file_id, first.output_file_id].sort());
    expect(fs.readdirSync(path.join(dataDir, 'files')).sort()).toEqual([first.error_file_id, first.output_file_id].sort());
    expect((await s.files.content('acct_1', first.output_file_id!))!.toString()).toBe('{"custom_id":"c0"}\n{"custom_id":"c2"}\n');
    expect(await s.batches.lines('batch_abc123')).toEqual([]);
  });

  it('expiry reports the lines never run as batch_expired and counts them failed', async () => {
    const s = await open();
    await s.batches.create(batchRecord());
    await s.batches.saveLine(line(0, 'completed'));
    const done = await finishBatch({ store: s, clock }, batchRecord(), { status: 'expired', unrun: [{ customId: 'c1' }, { customId: 'c2' }, { customId: 'c3' }] });
    expect(done).toMatchObject({ status: 'expired', request_counts: { total: 4, completed: 1, failed: 3 }, lease: null });
    const errors = (await s.files.content('acct_1', done.error_file_id!))!.toString().trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; error: { code: string } });
    expect(errors.map((e) => [e.custom_id, e.error.code])).toEqual([['c1', 'batch_expired'], ['c2', 'batch_expired'], ['c3', 'batch_expired']]);
  });
});

describe('cancelling a batch nobody runs', () => {
  it('finishes it at once: cancelled, with what finished in its files', async () => {
    const s = await open();
    await s.batches.create(batchRecord());
    await s.batches.saveLine(line(0, 'completed'));
    await s.batches.saveLine(line(3, 'failed'));
    const done = await cancelBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!);
    expect(done).toMatchObject({ status: 'cancelled', cancelling_at: clock.now() / 1000, cancelled_at: clock.now() / 1000, request_counts: { total: 4, completed: 1, failed: 1 }, lease: null });
    expect((await s.files.content('acct_1', done.output_file_id!))!.toString()).toBe('{"custom_id":"c0"}\n');
    await expect(cancelBatch({ store: s, clock }, done)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('leaves it cancelling while an instance holds its lease (that instance finishes it)', async () => {
    const s = await open();
    await s.batches.create(batchRecord({ lease: { owner: 'inst_other', expiresAt: clock.now() + 20_000 } }));
    const done = await cancelBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!);
    expect(done).toMatchObject({ status: 'cancelling', output_file_id: null, lease: { owner: 'inst_other' } });
  });

  it('leaves a native batch cancelling (its upstream batch must be cancelled by a server)', async () => {
    const s = await open();
    await s.batches.create(batchRecord({ mode: 'native' }));
    expect((await cancelBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!)).status).toBe('cancelling');
  });

  it('writes an output file larger than one JavaScript string can hold (50,000 long answers), not failing the finish forever', async () => {
    const s = await open();
    await s.batches.create(batchRecord({ request_counts: { total: 520, completed: 0, failed: 0 } }));
    // 520 answers of 1 MiB: 545 MB of output, past V8's longest string (2^29 - 24 characters).
    const answer = JSON.stringify({ custom_id: 'c', body: 'x'.repeat(1024 * 1024 - 30) });
    const lines = Array.from({ length: 520 }, (_, index): BatchLineRecord => ({ batchId: 'batch_abc123', index, customId: `c${index}`, outcome: 'completed', result: answer }));
    // The lines as the store would hand them back (saving 545 MB of progress first would only slow the test).
    vi.spyOn(s.batches, 'lines').mockResolvedValue(lines);
    try {
      const done = await finishBatch({ store: s, clock }, (await s.batches.get('batch_abc123'))!, { status: 'completed' });
      expect(done).toMatchObject({ status: 'completed', output_file_id: resultFileIds('batch_abc123').output, request_counts: { total: 520, completed: 520, failed: 0 } });
      const bytes = 520 * (Buffer.byteLength(answer) + 1);
      expect((await s.files.get('acct_1', done.output_file_id!))?.bytes).toBe(bytes);
      expect(fs.statSync(path.join(dataDir, 'files', done.output_file_id!)).size).toBe(bytes);
    } finally {
      await s.close();
      store = undefined;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
