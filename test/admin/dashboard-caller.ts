import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountRouter, type AccountContext } from '../../src/admin/index.ts';
import { createAccount } from '../../src/admin/accounts.ts';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import type { Tier } from '../../src/ir/index.ts';
import { createLogger } from '../../src/util/logger.ts';

/**
 * The dashboard's procedures (accountRouter) called in-process for one new account over a fresh
 * file store; `close` removes both. What the other fields hold lets a test act as the operator too.
 */
export async function dashboardCaller(now: number, account: { email: string; tier?: Tier }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-dashboard-'));
  const store = await FileStore.open(dataDir);
  const clock = { now: () => now };
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
  const registry = await ProviderRegistry.create(config, { configDir: process.cwd(), log: createLogger('silent') });
  const record = await createAccount(store, clock, { ...account, credits: 10 });
  const ctx: AccountContext = { account: record, sessionExpiresAt: now / 1000 + 3600, store, clock, config, registry };
  return {
    caller: accountRouter.createCaller(ctx),
    account: record,
    store,
    clock,
    config,
    registry,
    dataDir,
    async close() {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
