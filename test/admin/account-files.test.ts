// The dashboard's batches.file procedure serves the signed-in account's own files, and an expired
// one (a Gemini upload past its 48 hours) is gone there as on every other route, before the sweep.
import { afterEach, describe, expect, it } from 'vitest';
import type { FileRecord } from '../../src/store/index.ts';
import { dashboardCaller } from './dashboard-caller.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function dashboard() {
  const { caller, store, account, close } = await dashboardCaller(NOW, { email: 'files@example.test' });
  closers.push(close);
  const file = (id: string, expiresAt: number | null): FileRecord => ({ id, accountId: account.id, bytes: 5, created_at: NOW / 1000 - 60, expires_at: expiresAt, filename: `${id}.jsonl`, purpose: 'user_data', mimeType: 'text/plain' });
  return { caller, store, file };
}

describe('the dashboard downloads an own file', () => {
  it('serves a live file and refuses an expired one as missing, before the sweep deletes it', async () => {
    const { caller, store, file } = await dashboard();
    await store.files.create(file('filelive', null), new TextEncoder().encode('hello'));
    await store.files.create(file('fileold', NOW / 1000 - 1), new TextEncoder().encode('stale'));
    expect(await caller.batches.file({ id: 'filelive' })).toEqual({ id: 'filelive', filename: 'filelive.jsonl', content: 'hello' });
    await expect(caller.batches.file({ id: 'fileold' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Still stored (the sweep has not run): only the read refuses it.
    expect(await store.files.get(file('fileold', null).accountId, 'fileold')).toBeDefined();
  });
});
