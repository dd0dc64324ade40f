// Keys are never deleted (a revoked key stays, for its ledger lines), and the dashboard's
// keys.create had no bound: a signed-in account could create (and revoke) keys without end, each
// one more record in every key read and in the store's file. It may now make 1,000 itself.
import { afterEach, describe, expect, it } from 'vitest';
import { adminRouter } from '../../src/admin/index.ts';
import { dashboardCaller } from './dashboard-caller.ts';

const NOW = Date.UTC(2026, 10, 30, 6);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('the keys an account makes on the dashboard', () => {
  it('are at most 1,000, revoked ones included; the operator may still make more', { timeout: 60_000 }, async () => {
    const { caller, store, clock, config, registry, dataDir, close, account } = await dashboardCaller(NOW, { email: 'many@example.test' });
    closers.push(close);
    const first = await caller.keys.create({ name: 'k0' });
    await caller.keys.revoke({ id: first.id });
    await Promise.all(
      Array.from({ length: 999 }, (_, n) => store.keys.create({ id: `key_many${n}`, accountId: account.id, name: `k${n}`, hash: `h${n}`, preview: 'sk-…', rpm: null, expiresAt: null, revokedAt: null, createdAt: NOW })),
    );
    const refused = await caller.keys.create({ name: 'one more' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('at most 1000 API keys') });
    expect((await store.keys.list(account.id)).length).toBe(1_000);
    const admin = adminRouter.createCaller({ store, clock, config, dataDir, registry: async () => registry, credits: { summarizeUsage: async () => ({}) } as never });
    expect(await admin.keys.create({ account: account.email, name: 'operator' })).toMatchObject({ key: expect.any(String) });
  });
});
