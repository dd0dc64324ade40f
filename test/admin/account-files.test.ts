// The dashboard's batches.file procedure serves the signed-in account's own files, and an expired
// one (a Gemini upload past its 48 hours) is gone there as on every other route, before the sweep.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { accountRouter, type AccountContext } from '../../src/admin/index.ts';
import { createAccount } from '../../src/admin/accounts.ts';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import type { FileRecord } from '../../src/store/index.ts';
import { createLogger } from '../../src/util/logger.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function dashboard() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-account-files-'));
  const store = await FileStore.open(dataDir);
  closers.push(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const clock = { now: () => NOW };
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
  const account = await createAccount(store, clock, { email: 'files@example.test', credits: 10 });
  const ctx: AccountContext = {
    account,
    sessionExpiresAt: NOW / 1000 + 3600,
    store,
    clock,
    config,
    registry: await ProviderRegistry.create(config, { configDir: process.cwd(), log: createLogger('silent') }),
  };
  const file = (id: string, expiresAt: number | null): FileRecord => ({ id, accountId: account.id, bytes: 5, created_at: NOW / 1000 - 60, expires_at: expiresAt, filename: `${id}.jsonl`, purpose: 'user_data', mimeType: 'text/plain' });
  return { caller: accountRouter.createCaller(ctx), store, file };
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
