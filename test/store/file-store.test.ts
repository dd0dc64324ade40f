import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.ts';
import type { AccountRecord } from '../../src/store/types.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

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
  it('updates accounts in place, keeps them after a flush and a reopen, and writes a schema version', async () => {
    const dir = path.join(tempDir(), 'data');
    const store = await FileStore.open(dir, { flushDelayMs: 5 });
    for (let i = 0; i < 50; i++) await store.accounts.create(account(i));
    expect((await store.accounts.update('acct_7', { credits: 700 }))?.credits).toBe(700);
    expect(store.accounts.get('acct_7')?.credits).toBe(700);
    expect(await store.accounts.update('acct_missing', { credits: 1 })).toBeUndefined();
    await store.close();

    const again = await FileStore.open(dir);
    expect(again.accounts.get('acct_7')?.credits).toBe(700);
    expect((await again.accounts.update('acct_49', { suspended: true }))?.suspended).toBe(true);
    const list = await again.accounts.list();
    expect(list).toHaveLength(50);
    expect(list[49]).toMatchObject({ id: 'acct_49', suspended: true, credits: 49 });
    expect(list[7].credits).toBe(700);
    await again.close();
    expect(again.db.data.version).toBe(1);
  });
});
