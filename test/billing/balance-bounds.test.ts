import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminRouter } from '../../src/admin/router.ts';
import { addCreditsInput, createAccountInput, describeIssue } from '../../src/admin/settings-schema.ts';
import type { AdminContext } from '../../src/admin/trpc.ts';
import { applyGrant, boundBalance, MAX_BALANCE } from '../../src/billing/index.ts';
import { CreditBook, ledgerUsage } from '../../src/credits/index.ts';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import { UsageIndex } from '../../src/usage/usage-index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { runCli, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function admin() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-balance-'));
  const store = await FileStore.open(dataDir);
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
  const ctx: AdminContext = {
    store,
    clock: { now: () => Date.now() },
    config,
    dataDir,
    registry: () => ProviderRegistry.create(config, { configDir: process.cwd(), log: createLogger('silent') }),
    credits: ledgerUsage(path.join(dataDir, 'usage.jsonl')),
    usage: async () => new UsageIndex(),
  };
  closers.push(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { caller: adminRouter.createCaller(ctx), store, dataDir };
}

function refusal(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, input: unknown): string {
  const result = schema.safeParse(input);
  return result.success ? 'ok' : describeIssue(result.error as Parameters<typeof describeIssue>[0]);
}

describe('balances are finite and bounded', () => {
  it('applyGrant refuses what would leave 0…MAX_BALANCE, and names `add`', () => {
    expect(applyGrant(100, 50.5)).toBe(150.5);
    expect(applyGrant(100, -100)).toBe(0);
    expect(applyGrant(0, MAX_BALANCE)).toBe(MAX_BALANCE);
    for (const add of [1e308, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, -100.000001, MAX_BALANCE + 1]) {
      expect(() => applyGrant(100, add), String(add)).toThrow(/Invalid parameter 'add'/);
    }
    expect(() => applyGrant(MAX_BALANCE - 10, 11)).toThrow(/at most 10 can be added/);
    expect(() => applyGrant(5, -6)).toThrow(/at most 5 can be taken/);
  });

  it('charges keep a balance finite and within ±MAX_BALANCE (billing.enforce: false)', () => {
    expect(boundBalance(10, -1e300)).toBe(-MAX_BALANCE);
    expect(boundBalance(10, Number.NEGATIVE_INFINITY)).toBe(-MAX_BALANCE);
    expect(boundBalance(10, Number.NaN)).toBe(10);
    expect(boundBalance(10, 7)).toBe(7);
  });

  it('a huge charge through the credit book leaves a finite balance', async () => {
    const { store } = await admin();
    await store.accounts.create({ id: 'acct_1', email: 'a@example.test', passwordHash: null, tier: 'free', credits: 5, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 0 });
    new CreditBook(store).debit('acct_1', 1e308);
    expect(store.cache.account('acct_1')!.credits).toBe(-MAX_BALANCE);
    new CreditBook(store).debit('acct_1', Number.NaN);
    expect(store.cache.account('acct_1')!.credits).toBe(-MAX_BALANCE);
  });

  it('the schemas the procedures and the CLI share say the rule', () => {
    expect(refusal(addCreditsInput, { email: 'a@b.c', add: 1e308 })).toBe(`--add: must be between -${MAX_BALANCE} and ${MAX_BALANCE} credits`);
    expect(refusal(addCreditsInput, { email: 'a@b.c', add: Number.NaN })).toMatch(/^--add: /);
    expect(refusal(addCreditsInput, { email: 'a@b.c', add: Number.POSITIVE_INFINITY })).toMatch(/^--add: /);
    expect(refusal(addCreditsInput, { email: 'a@b.c', add: '5' })).toBe('--add: must be a number of credits');
    expect(refusal(addCreditsInput, { email: 'a@b.c', add: -5 })).toBe('ok');
    expect(refusal(createAccountInput, { email: 'a@example.test', credits: 1e308 })).toBe(`--credits: must be at most ${MAX_BALANCE} credits`);
    expect(refusal(createAccountInput, { email: 'a@example.test', credits: -1 })).toBe('--credits: must not be negative');
  });

  it('billing.addCredits refuses 1e308, NaN, Infinity and withdrawals past 0; the balance stays what it was', async () => {
    const { caller, store } = await admin();
    await caller.accounts.create({ email: 'rich@example.test', credits: 1000 });
    for (const add of [1e308, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1000.5, MAX_BALANCE]) {
      await expect(caller.billing.addCredits({ email: 'rich@example.test', add }), String(add)).rejects.toThrow(/add/);
    }
    expect((await store.accounts.findByEmail('rich@example.test'))!.credits).toBe(1000);
    expect((await caller.billing.addCredits({ email: 'rich@example.test', add: -1000 })).credits).toBe(0);
    expect((await caller.billing.addCredits({ email: 'rich@example.test', add: MAX_BALANCE })).credits).toBe(MAX_BALANCE);
    await expect(caller.accounts.create({ email: 'inf@example.test', credits: 1e308 })).rejects.toThrow(/credits/);
  });

  it('the CLI refuses the same values with a one-line message and a non-zero exit', async () => {
    const dir = tempDir('gw-balance-cli-');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', path.join(dir, 'data'), ...args]);
    expect((await cli('accounts', 'create', '--email', 'cli@example.test', '--credits', '10')).exitCode).toBe(0);
    const huge = await cli('accounts', 'credits', 'cli@example.test', '--add', '1e308');
    expect(huge.exitCode).toBe(1);
    expect(String(huge.stderr)).toContain(`--add: must be between -${MAX_BALANCE} and ${MAX_BALANCE} credits`);
    const past = await cli('accounts', 'credits', 'cli@example.test', '--add', '-11');
    expect(past.exitCode).not.toBe(0);
    expect(String(past.stderr)).toContain('would take the balance below 0');
    const shown = await cli('accounts', 'credits', 'cli@example.test', '--add', '5', '--json');
    expect((JSON.parse(String(shown.stdout)) as { credits: number }).credits).toBe(15);
  });
});
