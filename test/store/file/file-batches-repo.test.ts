import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/store/file/file-store.ts';
import type { BatchLineRecord } from '../../../src/store/index.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

const root = tempDir('gw-batch-lines-');
const line = (index: number): BatchLineRecord => ({ batchId: 'batch_torn', index, customId: `c${index}`, outcome: 'completed', result: JSON.stringify({ custom_id: `c${index}` }) });

describe("a batch's progress file", () => {
  it('a line written after a torn one (a write a full disk or a power loss cut short) is read back after the next restart', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(root, 'd-')), 'data');
    let store = await FileStore.open(dataDir, { flushDelayMs: 5 });
    await store.batches.saveLine(line(0));
    await store.close();
    const file = path.join(dataDir, 'batches', 'batch_torn.jsonl');
    // The next line's write cut short: part of it, no newline.
    fs.appendFileSync(file, JSON.stringify(line(1)).slice(0, 25));

    store = await FileStore.open(dataDir, { flushDelayMs: 5 });
    // The torn line runs again; the lines after it are saved.
    expect((await store.batches.lines('batch_torn')).map((l) => l.index)).toEqual([0]);
    expect(await store.batches.saveLine(line(1))).toBe(true);
    expect(await store.batches.saveLine(line(2))).toBe(true);
    await store.close();

    store = await FileStore.open(dataDir, { flushDelayMs: 5 });
    expect((await store.batches.lines('batch_torn')).map((l) => l.index)).toEqual([0, 1, 2]);
    await store.close();
  });
});
