import { settleLine } from '../../helpers/settle-line.ts';
import { atOnce } from '../../helpers/at-once.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedCredits, type SharedEntry } from '../../../src/credits/index.ts';
import type { CreditsRepo, FlushItem, HoldOutcome, HoldRequest, LeaseOutcome, SettleOutcome, SettleRequest } from '../../../src/store/repositories.ts';
import type { AccountRecord, ApiKeyRecord } from '../../../src/store/types.ts';
import { createLogger } from '../../../src/util/logger.ts';
import { ledgerLine } from '../../helpers/ledger-line.ts';

/**
 * A stand-in for the database behind `store.credits` (the real one is covered by the store
 * contract on PostgreSQL): one account's balance, holds and leases, a ledger keyed by request
 * id; it records calls, can fail, and answers after a delay.
 */
class FakeCredits implements CreditsRepo {
  readonly instance = 'inst_test';
  failFlushes = 0;
  balance = 1_000;
  readonly holdsById = new Map<string, number>();
  readonly ledgerRows = new Map<string, number>();
  readonly holdCalls: number[] = [];
  readonly flushCalls: number[] = [];
  readonly leaseCalls: Array<{ want: number; min: number }> = [];
  readonly released: string[] = [];
  delayMs = 5;

  get reserved(): number {
    return [...this.holdsById.values()].reduce((n, c) => n + c, 0);
  }

  private async pause(): Promise<void> {
    await new Promise((r) => setTimeout(r, this.delayMs));
  }

  async hold(request: HoldRequest): Promise<HoldOutcome> {
    return (await this.holdMany([request]))[0];
  }
  async holdMany(requests: readonly HoldRequest[]): Promise<HoldOutcome[]> {
    this.holdCalls.push(requests.length);
    await this.pause();
    return requests.map((r) => {
      if (r.credits > this.balance - this.reserved) return { outcome: 'balance', credits: this.balance, reserved: this.reserved, used: 0, limit: 0, reservedTokens: 0 };
      this.holdsById.set(r.requestId, r.credits);
      return { outcome: 'ok', credits: this.balance, reserved: this.reserved, used: 0, limit: 0, reservedTokens: 0 };
    });
  }
  async release(requestId: string): Promise<boolean> {
    this.released.push(requestId);
    return this.holdsById.delete(requestId);
  }
  async releaseLeft(leaseId: string): Promise<boolean> {
    this.released.push(leaseId);
    return this.holdsById.delete(leaseId);
  }
  async settle(request: SettleRequest): Promise<SettleOutcome> {
    return (await this.flush([{ entry: { ...request.entry, charged_credits: request.entry.cost_credits }, periods: request.periods }]))[0];
  }
  async settleMany(requests: readonly SettleRequest[]): Promise<SettleOutcome[]> {
    return Promise.all(requests.map((r) => this.settle(r)));
  }
  async lease(leaseId: string, _account: string, want: number, min: number): Promise<LeaseOutcome> {
    this.leaseCalls.push({ want, min });
    await this.pause();
    const avail = this.balance - this.reserved;
    if (avail < min) return { outcome: 'small', granted: 0, held: this.holdsById.get(leaseId) ?? 0 };
    const granted = Math.min(want, avail / 4);
    this.holdsById.set(leaseId, (this.holdsById.get(leaseId) ?? 0) + granted);
    return { outcome: 'ok', granted, held: this.holdsById.get(leaseId)! };
  }
  async flush(items: readonly FlushItem[]): Promise<SettleOutcome[]> {
    this.flushCalls.push(items.length);
    await this.pause();
    if (this.failFlushes > 0) {
      this.failFlushes -= 1;
      throw new Error('connection terminated');
    }
    return items.map((item) => {
      const id = item.entry.request_id;
      if (this.ledgerRows.has(id)) return { inserted: false, charged: 0 };
      let charged: number;
      if (item.lease) {
        charged = item.entry.charged_credits;
        this.holdsById.set(item.lease, (this.holdsById.get(item.lease) ?? 0) - charged);
      } else {
        const own = this.holdsById.get(id) ?? 0;
        this.holdsById.delete(id);
        charged = Math.min(item.entry.cost_credits, this.balance - this.reserved);
        void own;
      }
      this.balance -= charged;
      this.ledgerRows.set(id, charged);
      return { inserted: true, charged, seq: this.ledgerRows.size };
    });
  }
  async state() {
    const leased = [...this.holdsById].filter(([id]) => id.startsWith('lease:')).reduce((n, [, c]) => n + c, 0);
    return { credits: this.balance, reserved: this.reserved, leased, reservedTokens: 0, keyTotals: new Map(), keyReserved: new Map() };
  }
  async keySpend() {
    return [];
  }
  async usageTotals() {
    return [];
  }
  async billedRequests(prefix: string) {
    return new Set([...this.ledgerRows.keys()].filter((id) => id.startsWith(prefix)));
  }
  async ledger() {
    return [];
  }
  async recentLedger() {
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
/** A key with a spend limit: admitted request by request in the database. */
const limitedKey = { id: 'key_2', accountId: 'acct_1', limit: 1_000, limitReset: null } as ApiKeyRecord;
const entry = (id: string, cost = 2): SharedEntry => ledgerLine(id, cost);

const dirs: string[] = [];
const open: SharedCredits[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function make(repo: FakeCredits, options: { dataDir?: string; leaseIdleMs?: number; maxBacklog?: number } = {}): { credits: SharedCredits; dataDir: string } {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gw-shared-'));
  if (!options.dataDir) dirs.push(dataDir);
  const credits = new SharedCredits({ repo, clock: { now: () => Date.now() }, log: createLogger('silent'), enforce: true, dataDir, beatMs: 60_000, flushMs: 20, leaseIdleMs: options.leaseIdleMs ?? 60_000, maxBacklog: options.maxBacklog });
  open.push(credits);
  return { credits, dataDir };
}

const outboxLines = (dataDir: string) =>
  fs
    .readFileSync(path.join(dataDir, 'settlements.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { seq: number; request_id: string; lease?: string; charged_credits: number });

describe('shared credits (the database side faked)', () => {
  it('groups request-by-request admissions that arrive while one call is on its way; a lone one goes at once', async () => {
    const repo = new FakeCredits();
    const { credits } = make(repo);
    await credits.start();
    await credits.hold({ requestId: 'req_0', account, key: limitedKey, credits: 1, tokens: 0, needsBalance: true });
    expect(repo.holdCalls).toEqual([1]);
    const holds = await Promise.all(Array.from({ length: 10 }, (_, i) => credits.hold({ requestId: `req_${i + 1}`, account, key: limitedKey, credits: 1, tokens: 0, needsBalance: true })));
    expect(holds.map((h) => h.requestId)).toEqual(Array.from({ length: 10 }, (_, i) => `req_${i + 1}`));
    // The first went alone, the nine that came meanwhile together.
    expect(repo.holdCalls).toEqual([1, 1, 9]);
    expect(repo.leaseCalls).toHaveLength(0);
  });

  it('settlements end at the local write; the outbox sends them to the database in one call per window, and a view waits for them', async () => {
    const repo = new FakeCredits();
    const { credits, dataDir } = make(repo);
    await credits.start();
    const holds = await Promise.all(Array.from({ length: 10 }, (_, i) => credits.hold({ requestId: `req_${i}`, account, key: limitedKey, credits: 2, tokens: 0, needsBalance: true })));
    const charges = holds.map(() => ({ cost: 2, charged: 0 }));
    holds.forEach((h, i) => settleLine(credits, h, entry(h.requestId), charges[i], { now: true }));
    // In the data dir before any database call.
    expect(repo.flushCalls).toEqual([]);
    expect(outboxLines(dataDir).map((l) => l.request_id)).toEqual(holds.map((h) => h.requestId));
    expect(charges.every((c) => c.charged === 2)).toBe(true);
    expect((fs.statSync(path.join(dataDir, 'settlements.jsonl')).mode & 0o777).toString(8)).toBe('600');
    // A view of this instance shows them: it sends the outbox first.
    expect(await credits.balance('acct_1')).toMatchObject({ credits: 1_000 - 20, reserved: 0 });
    expect(repo.flushCalls).toEqual([10]);
    await expect.poll(() => Number(fs.readFileSync(path.join(dataDir, 'settlements.shipped'), 'utf8')), { timeout: 2_000, interval: 10 }).toBe(10);
  });

  it('a flush the database refuses stays in the data dir, is sent again, and a restart on the same data dir sends what was not (once)', async () => {
    const repo = new FakeCredits();
    repo.failFlushes = 2;
    const first = make(repo);
    await first.credits.start();
    const charge = { cost: 3, charged: 0 };
    settleLine(first.credits, undefined, entry('req_out', 3), charge, { now: true });
    await expect(first.credits.balance('acct_1')).resolves.toMatchObject({ credits: 1_000 });
    expect(repo.ledgerRows.size).toBe(0);
    // Retried in the background until the database answers.
    await expect.poll(() => repo.ledgerRows.get('req_out'), { timeout: 3_000, interval: 20 }).toBe(3);

    // An instance whose database does not answer, then dies: its lines wait in its data dir. A
    // restart on that data dir sends them first, and one the database has already charges once.
    const dead = new FakeCredits();
    dead.failFlushes = Infinity;
    const crashed = make(dead);
    await crashed.credits.start();
    settleLine(crashed.credits, undefined, entry('req_late', 4), { cost: 4, charged: 0 }, { now: true });
    settleLine(crashed.credits, undefined, entry('req_out', 3), { cost: 3, charged: 0 }, { now: true });
    expect(outboxLines(crashed.dataDir).map((l) => l.request_id)).toEqual(['req_late', 'req_out']);
    const restarted = make(repo, { dataDir: crashed.dataDir });
    await restarted.credits.start();
    expect(repo.ledgerRows).toEqual(new Map([['req_out', 3], ['req_late', 4]]));
    expect(repo.balance).toBe(1_000 - 7);
    await expect.poll(() => Number(fs.readFileSync(path.join(crashed.dataDir, 'settlements.shipped'), 'utf8')), { timeout: 2_000, interval: 10 }).toBe(2);
  }, 15_000);

  it('admits from a leased slice without a database call, tops up at the low-water mark, and gives the slice back when idle', async () => {
    const repo = new FakeCredits();
    repo.balance = 100_000;
    const { credits, dataDir } = make(repo, { leaseIdleMs: 200 });
    await credits.start();
    const first = await credits.hold({ requestId: 'r0', account, key, credits: 10, tokens: 0, needsBalance: true });
    expect(repo.leaseCalls).toEqual([{ want: 2_560, min: 640 }]);
    expect(first.slice).toBeDefined();
    const holds = [first];
    for (let i = 1; i < 100; i++) {
      holds.push(atOnce(credits.hold({ requestId: `r${i}`, account, key, credits: 10, tokens: 0, needsBalance: true }), `request ${i}`));
    }
    expect(repo.holdCalls).toEqual([]);
    expect(repo.reserved).toBe(2_560);
    for (const h of holds) settleLine(credits, h, entry(h.requestId, 7), { cost: 7, charged: 0 }, { now: true });
    expect(outboxLines(dataDir).every((l) => l.lease === 'lease:inst_test:acct_1' && l.charged_credits === 7)).toBe(true);
    await credits.balance('acct_1');
    expect(repo.balance).toBe(100_000 - 700);
    expect(repo.holdsById.get('lease:inst_test:acct_1')).toBe(2_560 - 700);
    // 186 credits of 2,560 left… no: 1,860 left, over a quarter: no top-up yet. Using it down past a quarter tops it up in the background.
    for (let i = 0; i < 130; i++) {
      const h = atOnce(credits.hold({ requestId: `s${i}`, account, key, credits: 10, tokens: 0, needsBalance: true }), `request s${i}`);
      settleLine(credits, h, entry(h.requestId, 10), { cost: 10, charged: 0 }, { now: true });
    }
    await expect.poll(() => repo.leaseCalls.length, { timeout: 2_000, interval: 10 }).toBe(2);
    // Idle: the lines are sent, then the lease hold goes back.
    await expect.poll(() => repo.released, { timeout: 3_000, interval: 20 }).toContain('lease:inst_test:acct_1');
    expect(repo.reserved).toBe(0);
    expect(repo.balance).toBe(100_000 - 700 - [...repo.ledgerRows.keys()].filter((k) => k.startsWith('s')).length * 10);
  });

  it('past the outbox bound (the database away for long) admission answers 503, also without anything to hold, and again admits once the lines are in', async () => {
    const repo = new FakeCredits();
    repo.failFlushes = Infinity;
    const { credits } = make(repo, { maxBacklog: 5 });
    await credits.start();
    const free = { requestId: 'f', account, key, credits: 0, tokens: 0, needsBalance: false };
    for (let i = 0; i < 5; i++) {
      const h = atOnce(credits.hold({ ...free, requestId: `f${i}` }));
      settleLine(credits, h, entry(h.requestId, 0), { cost: 0, charged: 0 }, { now: true });
    }
    expect(() => credits.hold(free)).toThrow(expect.objectContaining({ code: 'service_unavailable' }));
    // The port's hold throws at once what it can tell at once.
    await expect(Promise.resolve().then(() => credits.hold({ ...free, requestId: 'x', key: limitedKey, credits: 1, needsBalance: true }))).rejects.toMatchObject({ code: 'service_unavailable' });
    repo.failFlushes = 0;
    await expect.poll(() => repo.ledgerRows.size, { timeout: 8_000, interval: 20 }).toBe(5);
    expect(atOnce(credits.hold(free))).toMatchObject({ requestId: 'f', credits: 0, open: true });
  }, 15_000);

  it('an account with little available is admitted request by request (no credit idle in a slice), and never past its balance', async () => {
    const repo = new FakeCredits();
    repo.balance = 400;
    const { credits } = make(repo);
    await credits.start();
    const outcomes = await Promise.allSettled(Array.from({ length: 150 }, (_, i) => credits.hold({ requestId: `q${i}`, account, key, credits: 4, tokens: 0, needsBalance: true })));
    const held = outcomes.filter((o) => o.status === 'fulfilled');
    expect(held).toHaveLength(100);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code: string }).code).toBe('insufficient_balance');
    expect(repo.holdCalls.length).toBeGreaterThan(0);
    for (const o of held) settleLine(credits, o.value, entry(o.value.requestId, 4), { cost: 4, charged: 0 }, { now: true });
    await credits.balance('acct_1');
    expect(repo.balance).toBe(0);
  });
});
