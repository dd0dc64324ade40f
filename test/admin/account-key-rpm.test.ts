// A signed-in account may scope and cap its own keys on the dashboard, but not give one a rate limit:
// a key's RPM comes before the tier's (spec §8.1 row 1) and counts per key, so a free account
// (10/min) that set 1,000,000 on its keys would have left its tier's limit behind. Only the operator
// sets it (`gateway keys set --rpm`, the admin procedures).
import { afterEach, describe, expect, it } from 'vitest';
import { adminRouter } from '../../src/admin/index.ts';
import { dashboardCaller } from './dashboard-caller.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function dashboard() {
  const { caller, store, clock, config, registry, dataDir, close } = await dashboardCaller(NOW, { email: 'free@example.test', tier: 'free' });
  closers.push(close);
  const admin = adminRouter.createCaller({ store, clock, config, dataDir, registry: async () => registry, credits: { summarizeUsage: async () => ({}) } as never });
  return { caller, admin, store };
}

describe('the dashboard and a key rate limit', () => {
  it('refuses an rpm on keys.create and keys.set; the key keeps the tier limit', async () => {
    const { caller, store } = await dashboard();
    await expect(caller.keys.create({ name: 'fast', rpm: 1_000_000 } as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const { id } = await caller.keys.create({ name: 'plain' });
    await expect(caller.keys.set({ id, rpm: 1_000_000 } as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await store.keys.get(id))?.rpm ?? null).toBeNull();
    // What the page does set still works.
    expect(await caller.keys.set({ id, name: 'renamed', limit: 5 })).toMatchObject({ name: 'renamed' });
  });

  it('leaves an rpm the operator set in place when the owner edits the key', async () => {
    const { caller, admin, store } = await dashboard();
    const { id } = await caller.keys.create({ name: 'k' });
    await admin.keys.set({ id, rpm: 3 });
    await caller.keys.set({ id, name: 'still limited' });
    expect((await store.keys.get(id))?.rpm).toBe(3);
  });
});
