import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FileStore } from '../../../src/store/file/file-store.ts';
import { stringifyDeep, stringifyRecord } from '../../../src/store/stringify-record.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';
import { anAccount } from '../store.case.ts';

const root = tempDir('gw-db-');
let n = 0;
const freshDir = () => path.join(root, `d${++n}`);

describe('db.json writer', () => {
  it('a failed write is reported and retried; the changes stay pending and are written once it can', async () => {
    const dir = freshDir();
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { flushDelayMs: 5, warn: (message) => warnings.push(message) });
    const first = await store.accounts.create(anAccount({ credits: 1 }));
    // The temp file's name taken by a directory: every write fails until it is gone.
    const blocker = path.join(dir, `db.json.tmp-${process.pid}`);
    fs.mkdirSync(blocker);
    await expect(store.accounts.update(first.id, { tier: 'pro' })).rejects.toThrow(/could not write .*db\.json.*kept in memory and the write is retried/);
    void store.accounts.adjustCredits(first.id, 10);
    expect(warnings.some((w) => w.includes('db.json: write failed'))).toBe(true);
    expect(store.cache.account(first.id)?.tier).toBe('pro');
    // A create is the exception: its creator is told it failed, so it is not made (nor written later).
    await expect(store.accounts.create(anAccount({ id: 'acct_refused' }))).rejects.toThrow(/could not write .*db\.json.*the account was not created/);
    expect(store.cache.account('acct_refused')).toBeUndefined();
    fs.rmdirSync(blocker);
    // The retry (backoff 250 ms) writes everything that was pending.
    const saved = () => (JSON.parse(fs.readFileSync(path.join(dir, 'db.json'), 'utf8')) as { accounts: Array<{ id: string; tier: string }> }).accounts;
    await expect.poll(() => saved().find((a) => a.id === first.id)?.tier, { timeout: 5_000 }).toBe('pro');
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.cache.account(first.id)).toMatchObject({ tier: 'pro', credits: 11 });
    expect(again.cache.account('acct_refused')).toBeUndefined();
    await again.close();
  });

  it('balance changes under load are batched: one write per flushDelayMs, not one after another', async () => {
    const dir = freshDir();
    const store = await FileStore.open(dir, { flushDelayMs: 100 });
    const account = await store.accounts.create(anAccount({ credits: 1_000_000 }));
    const renames = vi.spyOn(fs.promises, 'rename');
    try {
      // A settlement every 2 ms for 600 ms, as a busy server charges balances.
      const until = Date.now() + 600;
      while (Date.now() < until) {
        void store.accounts.adjustCredits(account.id, -1);
        await new Promise((r) => setTimeout(r, 2));
      }
      expect(renames.mock.calls.length).toBeGreaterThan(1);
      expect(renames.mock.calls.length).toBeLessThanOrEqual(8);
    } finally {
      renames.mockRestore();
      await store.close();
    }
  });

  it('changes made before a write starts share one waiter; a change after it waits for the next write', async () => {
    const { FileDb } = await import('../../../src/store/file/file-db.ts');
    const dir = freshDir();
    fs.mkdirSync(dir, { recursive: true });
    const { db } = await FileDb.open(dir, { flushDelayMs: 50 });
    await db.flush();
    const a = db.changed(false);
    const b = db.changed(false);
    expect(b).toBe(a);
    const writes = vi.spyOn(fs.promises, 'rename');
    try {
      // The batched write starts (after 50 ms): a change made while it runs gets its own promise.
      await expect.poll(() => writes.mock.calls.length > 0 || (db as unknown as { writing?: unknown }).writing !== undefined, { interval: 1, timeout: 5_000 }).toBe(true);
      const c = db.changed(false);
      expect(c).not.toBe(a);
      await a;
      let cDone = false;
      void c.then(() => (cDone = true));
      await Promise.resolve();
      expect(cDone).toBe(false);
      await c;
      expect(writes.mock.calls.length).toBeGreaterThanOrEqual(2);
    } finally {
      writes.mockRestore();
      await db.close();
    }
  });

  it('writes one record per line, 0600, through a temp file; records nested thousands deep included', async () => {
    const dir = freshDir();
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    for (let i = 0; i < 3; i++) await store.accounts.create(anAccount());
    await store.close();
    const text = fs.readFileSync(path.join(dir, 'db.json'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ version: 2, accounts: [{}, {}, {}], apiKeys: [], sessions: [], files: [], batches: [] });
    expect(text.split('\n').filter((l) => l.startsWith('    {"id":"acct_'))).toHaveLength(3);
    expect(fs.statSync(path.join(dir, 'db.json')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});

describe('stringifyRecord', () => {
  it('is JSON.stringify for ordinary values and never throws on deep ones', () => {
    const ordinary = { a: 1, b: 'x"\n\u2028', c: [1, null, undefined, () => 1, { d: true }], e: undefined, f: new Date(0), g: Number.NaN, h: -0 };
    expect(stringifyRecord(ordinary)).toBe(JSON.stringify(ordinary));
    expect(stringifyDeep(ordinary)).toBe(JSON.stringify(ordinary));
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = stringifyRecord({ deep });
    let back = (JSON.parse(text) as { deep: unknown }).deep;
    for (let i = 19_999; i >= 0; i--) back = i % 2 ? (back as unknown[])[0] : (back as { k: unknown }).k;
    expect(back).toBe('leaf');
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(stringifyDeep(cycle)).toBe('{"a":1,"self":null}');
  });
});
