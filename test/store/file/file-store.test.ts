import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/store/file/file-store.ts';
import type { AccountRecord, Store } from '../../../src/store/index.ts';
import { DELETED_FILES_KEPT } from '../../../src/store/file/file-files-repo.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';
import { describeStore } from '../store.case.ts';

const root = tempDir('gw-store-');
const dirs = new WeakMap<Store, string>();
const freshDir = () => path.join(fs.mkdtempSync(path.join(root, 'd-')), 'data');

describeStore('file', {
  async open() {
    const dir = freshDir();
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    dirs.set(store, dir);
    return store;
  },
  async reopen(store) {
    const dir = dirs.get(store)!;
    await store.close();
    const next = await FileStore.open(dir, { flushDelayMs: 5 });
    dirs.set(next, dir);
    return next;
  },
});

const account = (i: number): AccountRecord => ({
  id: `acct_${i}`,
  email: `u${i}@example.test`,
  passwordHash: null,
  tier: 'free',
  credits: i,
  monthlyTokenQuota: null,
  suspended: false,
  rpm: null,
  createdAt: i,
});

describe('FileStore', () => {
  it("remembers the last DELETED_FILES_KEPT deleted files' ids in db.json, the oldest dropped first, across a reopen", async () => {
    const dir = freshDir();
    let store = await FileStore.open(dir, { flushDelayMs: 5 });
    store.db.data.deletedFiles = Array.from({ length: DELETED_FILES_KEPT }, (_, i) => ({ accountId: 'acct_d', id: `file-old${i}` }));
    const file = { id: 'file-newest0000000001', accountId: 'acct_d', bytes: 1, created_at: 1, expires_at: null, filename: 'a.txt', purpose: 'user_data' };
    await store.files.create(file, Buffer.from('x'));
    await store.files.delete('acct_d', file.id);
    await store.flush();
    await store.close();
    store = await FileStore.open(dir, { flushDelayMs: 5 });
    try {
      expect(store.db.data.deletedFiles).toHaveLength(DELETED_FILES_KEPT);
      expect(await store.files.wasDeleted('acct_d', file.id)).toBe(true);
      expect(await store.files.wasDeleted('acct_d', 'file-old0')).toBe(false);
      expect(await store.files.wasDeleted('acct_d', 'file-old1')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('adjustCreditsInBackground: the same change as adjustCredits without a promise, written with the next batch', async () => {
    const dir = freshDir();
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    await store.accounts.create(account(3));
    const adjust = store.accounts.adjustCreditsInBackground!;
    expect(adjust('acct_3', -1.5, 4)).toBeUndefined();
    expect(store.cache.account('acct_3')).toMatchObject({ credits: 1.5, billedSeq: 4 });
    adjust('acct_3', 1, 2); // an older checkpoint does not move billedSeq back
    expect(store.cache.account('acct_3')).toMatchObject({ credits: 2.5, billedSeq: 4 });
    adjust('acct_missing', 1);
    expect(store.cache.account('acct_missing')).toBeUndefined();
    expect(() => adjust('acct_3', Number.POSITIVE_INFINITY)).toThrow(/finite/);
    expect(store.cache.account('acct_3')?.credits).toBe(2.5);
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.cache.account('acct_3')).toMatchObject({ credits: 2.5, billedSeq: 4 });
    await again.close();
  });

  it('a credit change replaces the record: one read before it does not change, and fields this version does not know are kept', async () => {
    const store = await FileStore.open(freshDir(), { flushDelayMs: 5 });
    await store.accounts.create({ ...account(4), newerField: { kept: true } } as AccountRecord);
    const before = store.cache.account('acct_4')!;
    const seen = structuredClone(before);
    store.accounts.adjustCreditsInBackground!('acct_4', -1, 9);
    await store.accounts.adjustCredits('acct_4', -0.5, { billedSeq: 10 });
    expect(before).toEqual(seen);
    const after = store.cache.account('acct_4')!;
    expect(after).not.toBe(before);
    expect(after).toEqual({ ...seen, credits: seen.credits - 1.5, billedSeq: 10 });
    await store.close();
  });

  it('updates accounts in place, keeps them after a flush and a reopen, and writes a schema version', async () => {
    const dir = freshDir();
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    for (let i = 0; i < 50; i++) await store.accounts.create(account(i));
    expect((await store.accounts.adjustCredits('acct_7', 693))?.credits).toBe(700);
    expect(store.cache.account('acct_7')?.credits).toBe(700);
    expect(await store.accounts.adjustCredits('acct_missing', 1)).toBeUndefined();
    await store.close();

    const again = await FileStore.open(dir);
    expect(again.cache.account('acct_7')?.credits).toBe(700);
    expect((await again.accounts.update('acct_49', { suspended: true }))?.suspended).toBe(true);
    const list = await again.accounts.list();
    expect(list).toHaveLength(50);
    expect(list[49]).toMatchObject({ id: 'acct_49', suspended: true, credits: 49 });
    expect(list[7].credits).toBe(700);
    await again.close();
    expect(again.db.data.version).toBe(2);
  });
});

describe('side files a killed process left in the data dir', () => {
  it("db.json's and media.jsonl's side files of a process that is gone are removed at opening; a live process's are left", async () => {
    const dir = freshDir();
    await (await FileStore.open(dir, { flushDelayMs: 5 })).close();
    // A pid that is no process's: a child that has exited.
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const left = [`db.json.tmp-${gone}`, `media.jsonl.compact-${gone}`];
    for (const name of left) fs.writeFileSync(path.join(dir, name), 'x'.repeat(1000));
    // A parent process of this one is alive: its side file may be in the middle of its write.
    const live = `db.json.tmp-${process.ppid}`;
    fs.writeFileSync(path.join(dir, live), 'y');
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    const names = fs.readdirSync(dir);
    for (const name of left) expect(names).not.toContain(name);
    expect(names).toContain(live);
    await store.close();
  });
});
