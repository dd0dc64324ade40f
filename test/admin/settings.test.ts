import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { login } from '../../src/accounts/index.ts';
import { adminRouter } from '../../src/admin/router.ts';
import { createAccountInput, createKeyInput, describeIssue, setAccountInput, setKeyInput } from '../../src/admin/settings-schema.ts';
import type { AdminContext } from '../../src/admin/trpc.ts';
import { ledgerUsage } from '../../src/credits/index.ts';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import { UsageIndex } from '../../src/usage/usage-index.ts';
import { createLogger } from '../../src/util/logger.ts';

const NOW = Date.UTC(2026, 2, 10, 12);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The admin procedures in-process over a fresh data dir, with usage the test writes. */
async function admin() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-admin-'));
  const store = await FileStore.open(dataDir);
  const usage = new UsageIndex();
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
  const clock = { now: () => NOW };
  const ctx: AdminContext = {
    store,
    clock,
    config,
    dataDir,
    registry: () => ProviderRegistry.create(config, { configDir: process.cwd(), log: createLogger('silent') }),
    credits: ledgerUsage(path.join(dataDir, 'usage.jsonl')),
    usage: async () => usage,
  };
  closers.push(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { caller: adminRouter.createCaller(ctx), store, usage, clock };
}

function issue(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, input: unknown): string {
  const result = schema.safeParse(input);
  if (result.success) return 'ok';
  return describeIssue(result.error as Parameters<typeof describeIssue>[0]);
}

describe('the shared settings schema', () => {
  it('names the flag and the rule of the first problem', () => {
    expect(issue(setKeyInput, { id: 'k', limit: -1 })).toBe('--limit: must not be negative');
    expect(issue(setKeyInput, { id: 'k', limitReset: 'yearly' })).toBe('--limit-reset: must be one of daily, weekly, monthly (or none)');
    // The value refused is named (before: only the list, so "chat,messagse" left the reader to find the typo).
    expect(issue(setKeyInput, { id: 'k', endpoints: ['chat', 'video'] })).toBe("--endpoints: 'video' is not an endpoint (did you mean 'videos'?); an endpoint is one of chat, responses, messages, gemini, completions, images, audio, files, batches, videos, embeddings, moderations");
    expect(issue(setKeyInput, { id: 'k', endpoints: ['everything'] })).toBe("--endpoints: 'everything' is not an endpoint; an endpoint is one of chat, responses, messages, gemini, completions, images, audio, files, batches, videos, embeddings, moderations");
    expect(issue(createKeyInput, { endpoints: ['x'.repeat(100_000)] })).toMatch(new RegExp(`^--endpoints: '${'x'.repeat(40)}…' is not an endpoint; `));
    expect(issue(createKeyInput, { endpoints: ['chat', 'messagse'] })).toMatch(/^--endpoints: 'messagse' is not an endpoint \(did you mean 'messages'\?\); /);
    expect(issue(setKeyInput, { id: 'k', models: ['openai/*', 'bad model'] })).toMatch(/^--models: a model id or glob may contain/);
    expect(issue(setKeyInput, { id: 'k', models: [] })).toBe('--models: name at least one model (or all)');
    expect(issue(setKeyInput, { id: 'k', expires: 'next tuesday' })).toMatch(/^--expires: must be an ISO date/);
    expect(issue(setKeyInput, { id: 'k', rpm: 0 })).toBe('--rpm: must be positive');
    expect(issue(setKeyInput, { id: 'k' })).toMatch(/^Nothing to change/);
    expect(issue(setKeyInput, { id: 'k', limit: 'ten' })).toBe('--limit: must be a number of credits');
    expect(issue(setAccountInput, { email: 'a@x.test' })).toBe('Nothing to change: give --tier, --quota, --rpm, --spend-cap, --password/--no-password or --suspended/--no-suspended.');
    expect(issue(setAccountInput, { email: 'a@x.test', password: null })).toBe('ok');
    expect(issue(setAccountInput, { email: 'a@x.test', spendCap: -5 })).toBe('--spend-cap: must not be negative');
    expect(issue(setAccountInput, { email: 'a@x.test', password: 'short' })).toBe('--password: must be at least 8 characters');
    expect(issue(setAccountInput, { email: 'a@x.test', tier: 'gold' })).toBe('--tier: must be one of free, basic, fellow, pro, enterprise');
    expect(issue(createKeyInput, { limit: 10, limitReset: null, models: ['mock/*'], endpoints: ['chat'] })).toBe('ok');
  });

  // An address as a browser's email field takes it (the first-run account is local@localhost): before, a host
  // without a dot (admin@localhost, ops@intranet) was refused by the CLI and the TUI.
  it('an account email is what a browser takes as one, a host without a dot included', () => {
    for (const email of ['admin@localhost', 'ops@intranet', 'a.b+c@example.test']) expect([email, issue(createAccountInput, { email })]).toEqual([email, 'ok']);
    for (const email of ['bad', 'a@', '@b', 'a b@c', 'a@b@c']) expect([email, issue(createAccountInput, { email })]).toEqual([email, '--email: must be an email address']);
  });
});

describe('key procedures', () => {
  it('create with scopes and a limit, then change name, RPM, expiry, scopes and limit; null clears', async () => {
    const { caller, usage } = await admin();
    await caller.accounts.create({ email: 'ann@x.test', tier: 'pro', credits: 100 });
    const created = await caller.keys.create({ account: 'ann@x.test', name: 'ci', models: ['mock/*', 'mock/*'], endpoints: ['chat'], limit: 10, limitReset: 'monthly' });
    expect(created).toMatchObject({ name: 'ci', models: ['mock/*'], endpoints: ['chat'], limit: 10, limit_reset: 'monthly', limit_used: 0, last_used_at: null });
    usage.add({ ts: NOW, account_id: 'x', key_id: created.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, cost_credits: 3.5, charged_credits: 3.5 } as never);
    const set = await caller.keys.set({ id: created.id, name: 'deploy', rpm: 30, expires: '2027-01-31', models: ['claude-*'], endpoints: null, limit: 20 });
    expect(set).toMatchObject({ name: 'deploy', rpm: 30, expires_at: Date.UTC(2027, 0, 31) / 1000, models: ['claude-*'], endpoints: null, limit: 20, limit_reset: 'monthly', limit_used: 3.5 });
    const cleared = await caller.keys.set({ id: created.id, rpm: null, expires: null, models: null, limit: null, limitReset: null });
    expect(cleared).toMatchObject({ name: 'deploy', rpm: null, expires_at: null, models: null, limit: null, limit_reset: null, limit_used: null });
    expect((await caller.keys.list()).map((k) => k.id)).toEqual([created.id]);
  });

  it('refuses what the CLI refuses, with the same words', async () => {
    const { caller } = await admin();
    const { id } = await caller.keys.create({});
    await expect(caller.keys.set({ id, limit: -1 })).rejects.toThrow('limit: must not be negative');
    await expect(caller.keys.set({ id })).rejects.toThrow(/Nothing to change/);
    await expect(caller.keys.set({ id: 'key_missing', rpm: 3 })).rejects.toThrow('No API key with id key_missing.');
  });
});

describe('account procedures', () => {
  it('set tier, quota, spend cap and suspension; the cap shows this month\'s spend', async () => {
    const { caller, usage, store } = await admin();
    const account = await caller.accounts.create({ email: 'bob@x.test', password: 'first-pass', tier: 'basic', credits: 5, quota: 1000, spendCap: 50 });
    expect(account).toMatchObject({ tier: 'basic', credits: 5, monthly_token_quota: 1000, spend_cap: 50, month_spent: 0, has_password: true });
    usage.add({ ts: NOW, account_id: account.id, key_id: 'k', model: 'm', provider: 'p', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, cost_credits: 7, charged_credits: 7 } as never);
    const set = await caller.accounts.set({ email: 'bob@x.test', tier: 'pro', quota: null, spendCap: 80, suspended: true });
    expect(set).toMatchObject({ tier: 'pro', monthly_token_quota: null, spend_cap: 80, month_spent: 7, suspended: true });
    expect(store.cache.account(account.id)?.spendCap).toBe(80);
    expect((await caller.accounts.set({ email: 'bob@x.test', spendCap: null })).spend_cap).toBeNull();
  });

  it('a new password logs in, and ends the sessions opened with the old one; reset returns a new one once', async () => {
    const { caller, store, clock } = await admin();
    await caller.accounts.create({ email: 'cy@x.test', password: 'first-pass' });
    const old = await login(store, clock, 'cy@x.test', 'first-pass');
    expect(store.cache.sessionByHash(hashOf(old.token))).toBeDefined();
    await caller.accounts.set({ email: 'cy@x.test', password: 'second-pass' });
    expect(store.cache.sessionByHash(hashOf(old.token))).toBeUndefined();
    await expect(login(store, clock, 'cy@x.test', 'first-pass')).rejects.toMatchObject({ code: 'authentication_error' });
    await login(store, clock, 'cy@x.test', 'second-pass');
    const reset = await caller.accounts.resetPassword({ email: 'cy@x.test' });
    expect(reset.password.length).toBeGreaterThanOrEqual(16);
    await expect(login(store, clock, 'cy@x.test', 'second-pass')).rejects.toMatchObject({ code: 'authentication_error' });
    await login(store, clock, 'cy@x.test', reset.password);
    const removed = await caller.accounts.set({ email: 'cy@x.test', password: null });
    expect(removed.has_password).toBe(false);
    await expect(login(store, clock, 'cy@x.test', reset.password)).rejects.toMatchObject({ code: 'authentication_error' });
    expect(JSON.stringify(await caller.accounts.list())).not.toContain('scrypt');
  });
});

function hashOf(token: string): string {
  // The store keeps sessions by sha256 of the token.
  return createHash('sha256').update(token).digest('hex');
}
