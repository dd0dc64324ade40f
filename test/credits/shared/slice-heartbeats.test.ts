// A slice must not admit on credit the database may no longer hold for it: not once this
// instance's heartbeats stop reaching the database (review10, finding R3), nor after such a gap
// until a top-up has set it to what the database holds (R3b).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SharedCredits } from '../../../src/credits/index.ts';
import { atOnce } from '../../helpers/at-once.ts';
import type { CreditsRepo } from '../../../src/store/repositories.ts';
import type { AccountRecord, ApiKeyRecord } from '../../../src/store/types.ts';
import { createLogger } from '../../../src/util/logger.ts';

const account = { id: 'acct_1', tier: 'free' } as AccountRecord;
const key = { id: 'key_1', accountId: 'acct_1' } as ApiKeyRecord;
const ask = (requestId: string) => ({ requestId, account, key, credits: 1, tokens: 0, needsBalance: true });
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * Shared credits on a fake database whose lease holds are a map; `state.beating` false makes
 * heartbeats fail. With `reachable` false every other call fails too (the database is away).
 */
async function instance(reachable: boolean) {
  const state = { beating: true };
  const holds = new Map<string, number>();
  const away = async () => {
    throw new Error('connection timeout');
  };
  const repo = {
    instance: 'inst_a',
    async beat() {
      if (!state.beating) throw new Error('connection timeout');
    },
    async releaseStale() {
      return 0;
    },
    async lease(leaseId: string, _account: string, want: number) {
      holds.set(leaseId, (holds.get(leaseId) ?? 0) + want);
      return { outcome: 'ok' as const, granted: want, held: holds.get(leaseId)! };
    },
    holdMany: reachable ? async (requests: unknown[]) => requests.map(() => ({ outcome: 'ok' as const, credits: 1_000_000, reserved: 0, used: 0, limit: 0, reservedTokens: 0 })) : away,
    flush: reachable ? async (items: unknown[]) => items.map(() => ({ inserted: true, charged: 0 })) : away,
    async release(id: string) {
      return holds.delete(id);
    },
    async leave() {},
  } as unknown as CreditsRepo;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-slice-beats-'));
  const credits = new SharedCredits({ repo, clock: { now: () => Date.now() }, log: createLogger('silent'), enforce: true, dataDir, beatMs: 50, staleMs: 400, flushMs: 20, leaseIdleMs: 60_000 });
  await credits.start();
  cleanups.push(async () => {
    await credits.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { credits, holds, state };
}

it('a slice admits nothing once this instance has not beaten for long enough that another instance may have swept its lease', async () => {
  const { credits, state } = await instance(false);
  const first = await credits.hold(ask('r0'));
  expect(first.slice).toBeDefined();
  expect(atOnce(credits.hold(ask('r1'))).slice).toBeDefined();
  // This instance loses the database (its heartbeats fail); the others still reach it and, after
  // staleMs, sweep its holds — the lease hold too: the slice's credit is the account's again.
  state.beating = false;
  await new Promise((r) => setTimeout(r, 600));
  // Admitting from the slice now would spend credit another instance may be spending too.
  // So the database is asked (a promise, not a hold from the slice), and, away, it refuses.
  await expect(credits.hold(ask('r2'))).rejects.toMatchObject({ code: 'service_unavailable' });
}, 10_000);

it('after a heartbeat gap long enough for a sweep, a slice admits nothing the database does not hold for it (not even once beats are back)', async () => {
  const { credits, holds, state } = await instance(true);
  const lease = 'lease:inst_a:acct_1';
  const first = await credits.hold(ask('r0'));
  expect(first.slice).toBeDefined();
  credits.release(first);
  // Beats stop reaching the database for longer than staleMs; another instance sweeps the lease hold.
  state.beating = false;
  await new Promise((r) => setTimeout(r, 600));
  holds.delete(lease);
  // The database is back; a few beats later this instance admits again.
  state.beating = true;
  await new Promise((r) => setTimeout(r, 150));
  let fromSlice = 0;
  for (let i = 0; i < 600; i++) {
    const h = await credits.hold(ask(`s${i}`));
    if (h.slice) fromSlice += h.credits;
    // What this instance admitted from its slice is never more than the database holds for it.
    expect(fromSlice, `request ${i}`).toBeLessThanOrEqual(holds.get(lease) ?? 0);
  }
  // The slice serves again once corrected.
  expect(fromSlice).toBeGreaterThan(100);
}, 10_000);
