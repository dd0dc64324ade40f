import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedCredits, type SharedEntry } from '../../src/accounts/shared-credits.ts';
import type { CreditsRepo, HoldOutcome, HoldRequest, SettleOutcome, SettleRequest } from '../../src/store/repositories.ts';
import type { AccountRecord, ApiKeyRecord } from '../../src/store/types.ts';
import { createLogger } from '../../src/util/logger.ts';

/**
 * A stand-in for the database behind `store.credits` (the real one is covered by the store
 * contract on PostgreSQL): it records calls, can fail, and answers after a delay.
 */
class FakeCredits implements CreditsRepo {
  failSettles = 0;
  readonly settled: SettleRequest[] = [];
  readonly holdCalls: number[] = [];
  readonly settleCalls: number[] = [];
  delayMs = 5;

  private async pause(): Promise<void> {
    await new Promise((r) => setTimeout(r, this.delayMs));
  }

  async hold(request: HoldRequest): Promise<HoldOutcome> {
    return (await this.holdMany([request]))[0];
  }
  async holdMany(requests: readonly HoldRequest[]): Promise<HoldOutcome[]> {
    this.holdCalls.push(requests.length);
    await this.pause();
    return requests.map(() => ({ outcome: 'ok', credits: 100, reserved: 0, used: 0, limit: 0, reservedTokens: 0 }));
  }
  async release(): Promise<boolean> {
    return true;
  }
  async settle(request: SettleRequest): Promise<SettleOutcome> {
    return (await this.settleMany([request]))[0];
  }
  async settleMany(requests: readonly SettleRequest[]): Promise<SettleOutcome[]> {
    this.settleCalls.push(requests.length);
    await this.pause();
    if (this.failSettles > 0) {
      this.failSettles -= 1;
      throw new Error('connection terminated');
    }
    const seen = new Set(this.settled.map((r) => r.entry.request_id));
    return requests.map((r) => {
      if (seen.has(r.entry.request_id)) return { inserted: false, charged: 0 };
      seen.add(r.entry.request_id);
      this.settled.push(r);
      return { inserted: true, charged: r.entry.cost_credits, seq: this.settled.length };
    });
  }
  async state() {
    return undefined;
  }
  async keySpend() {
    return [];
  }
  async usageTotals() {
    return [];
  }
  async billedRequests() {
    return new Set<string>();
  }
  async ledger() {
    return [];
  }
  async beat(): Promise<void> {}
  async releaseStale(): Promise<number> {
    return 0;
  }
  async leave(): Promise<void> {}
}

const account = { id: 'acct_1', tier: 'free' } as AccountRecord;
const key = { id: 'key_1', accountId: 'acct_1' } as ApiKeyRecord;
const entry = (id: string, cost = 2): SharedEntry => ({
  ts: Date.now(),
  request_id: id,
  account_id: 'acct_1',
  key_id: 'key_1',
  model: 'mock/echo',
  provider: 'mock',
  endpoint: '/v1/chat/completions',
  input_tokens: 1,
  output_tokens: 1,
  reasoning_tokens: 0,
  cached_tokens: 0,
  cost_credits: cost,
  estimated: false,
  aborted: false,
});

const dirs: string[] = [];
const open: SharedCredits[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function make(repo: FakeCredits, beatMs = 60_000): { credits: SharedCredits; dataDir: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-shared-'));
  dirs.push(dataDir);
  const credits = new SharedCredits({ repo, clock: { now: () => Date.now() }, log: createLogger('silent'), enforce: true, dataDir, beatMs });
  open.push(credits);
  return { credits, dataDir };
}

describe('shared credits (the database side faked)', () => {
  it('groups admissions and settlements that arrive while one call is on its way; a lone one goes at once', async () => {
    const repo = new FakeCredits();
    const { credits } = make(repo);
    await credits.hold({ requestId: 'req_0', account, key, credits: 1, tokens: 0, needsBalance: true });
    expect(repo.holdCalls).toEqual([1]);
    const holds = await Promise.all(Array.from({ length: 10 }, (_, i) => credits.hold({ requestId: `req_${i + 1}`, account, key, credits: 1, tokens: 0, needsBalance: true })));
    expect(holds.map((h) => h.requestId)).toEqual(Array.from({ length: 10 }, (_, i) => `req_${i + 1}`));
    // The first went alone, the nine that came meanwhile together.
    expect(repo.holdCalls).toEqual([1, 1, 9]);
    const charges = Array.from({ length: 10 }, () => ({ cost: 2, charged: 0 }));
    await Promise.all(holds.map((h, i) => credits.settle(h, entry(h.requestId), charges[i])));
    expect(repo.settleCalls).toEqual([1, 9]);
    expect(charges.every((c) => c.charged === 2)).toBe(true);
    expect(repo.settled).toHaveLength(10);
  });

  it('a settlement the database keeps refusing waits in the data dir and is sent once it answers (once, even if sent twice)', async () => {
    const repo = new FakeCredits();
    repo.failSettles = 5; // the group call, then the call alone and its three retries
    const { credits, dataDir } = make(repo, 100);
    const charge = { cost: 3, charged: 0 };
    await credits.settle(undefined, entry('req_out', 3), charge);
    const file = path.join(dataDir, 'settlements.pending.jsonl');
    expect(fs.existsSync(file)).toBe(true);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(fs.readFileSync(file, 'utf8').trim())).toMatchObject({ entry: { request_id: 'req_out', cost_credits: 3 }, enforce: true });
    expect(repo.settled).toHaveLength(0);
    // The heartbeat sends it.
    await credits.start();
    await expect.poll(() => repo.settled.length, { timeout: 2_000, interval: 20 }).toBe(1);
    await expect.poll(() => fs.existsSync(file), { timeout: 2_000, interval: 20 }).toBe(false);
    // Kept again (a crash between the commit and the rewrite): the database settles it once.
    fs.writeFileSync(file, JSON.stringify({ entry: entry('req_out', 3), enforce: true, periods: { day: 'd', week: 'w', month: 'm' } }) + '\n');
    await expect.poll(() => fs.existsSync(file), { timeout: 2_000, interval: 20 }).toBe(false);
    expect(repo.settled).toHaveLength(1);
  }, 15_000);
});
