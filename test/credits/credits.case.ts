/**
 * The credits contract, one suite for both engines (issue 21 §3): the in-process one (file
 * store: credit book + usage.jsonl) and the shared one (PostgreSQL: holds, slices, outbox).
 * It speaks only the guards' money surface — admit (hold), settle (charge or release),
 * billedRequests, the credits view and the operator's usage view — so the same cases hold whichever engine is behind it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { creditsToUsd } from '../../src/billing/index.ts';
import { activityRange } from '../../src/usage/index.ts';
import type { MaybePromise } from '../../src/util/index.ts';
import { AccountGuards, type Admission, type AdmissionRequest } from '../../src/accounts/index.ts';
import { adminRouter } from '../../src/admin/index.ts';
import type { Settlement } from '../../src/pipeline/types.ts';
import { makeGateway, type TestGateway } from '../accounts/make-gateway.ts';

/** 1 credit an output token, input free: max_tokens n holds n credits. */
const OUTPUT_ONLY = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } };

export interface CreditsEngine {
  /** Extra config that selects the engine (e.g. `store: { postgres }`). */
  config(): Promise<Record<string, unknown>>;
}

export function describeCreditsContract(name: string, engine: CreditsEngine): void {
  describe(`credits contract: ${name}`, () => {
    let gw: TestGateway | undefined;
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
    });

    let n = 0;
    async function setUp(credits: number, dataDir?: string, keyLimit?: number) {
      gw = await makeGateway({ ...OUTPUT_ONLY, ...(await engine.config()) }, dataDir ? { dataDir } : {});
      const guards = gw.gateway.deps.guards;
      if (!(guards instanceof AccountGuards)) throw new Error('account guards not wired');
      const { accountId } = await gw.account({ credits, tier: 'enterprise', ...(keyLimit === undefined ? {} : { key: { limit: keyLimit } }) });
      const account = gw.gateway.deps.store.cache.account(accountId)!;
      const [key] = await gw.gateway.deps.store.keys.list(accountId);
      const prefix = `contract-${Date.now()}-${++n}:`;
      let i = 0;
      const request = (maxOutputTokens: number): AdmissionRequest => ({
        auth: { account, key },
        method: 'POST',
        route: '/v1/chat/completions',
        clientAddress: '::1',
        model: 'mock/echo',
        estimatedInputTokens: 0,
        maxOutputTokens,
        requestId: `${prefix}${++i}`,
      });
      const usage = (outputTokens: number): Settlement => ({ model: gw!.gateway.deps.registry.get('mock/echo')!, usage: { inputTokens: 0, outputTokens }, estimated: false, aborted: false }) as Settlement;
      const balance = async () => (await guards.usageViews.credits(account)).data.credits;
      return { guards, request, usage, balance, prefix, account, key, accountId };
    }

    const refusal = (p: MaybePromise<Admission>) => Promise.resolve(p).then(() => 'admitted', (e: { code?: string }) => e.code);

    it('holds the worst case: admitted while the balance covers it, 402 insufficient_balance beyond', async () => {
      const { guards, request } = await setUp(100);
      const first = await guards.admit(request(60));
      expect(await refusal(guards.admit(request(60)))).toBe('insufficient_balance');
      await first.settle(null);
    });

    it('settles the actual usage: the balance drops by its cost, the ledger holds the line once, nothing stays held', async () => {
      const { guards, request, usage, balance, prefix } = await setUp(100);
      const admission = await guards.admit(request(60));
      const charge = await admission.settle(usage(10));
      expect(charge).toMatchObject({ cost: 10, charged: 10, held: 60 });
      expect(await balance()).toMatchObject({ balance: 90, reserved: 0, total_used: 10 });
      expect(await guards.billedRequests(prefix)).toEqual(new Set([`${prefix}1`]));
    });

    it('a release gives the whole hold back and charges nothing', async () => {
      const { guards, request, balance, prefix } = await setUp(100);
      // At once: the next admission of the whole balance is never refused for credit on its way back.
      await (await guards.admit(request(100))).settle(null);
      const again = await guards.admit(request(100));
      await again.settle(null);
      expect(await balance()).toMatchObject({ balance: 100, reserved: 0 });
      expect((await guards.billedRequests(prefix)).size).toBe(0);
    });

    it('charges beyond their holds, settled at once, never take the balance below zero; the ledger sum is the drop', async () => {
      const { guards, request, usage, balance, prefix } = await setUp(100);
      const admissions = await Promise.all(Array.from({ length: 10 }, () => guards.admit(request(10))));
      // Each used 30 (an upstream billing more than the hold): 300 of usage on 100 of credit.
      const charges = await Promise.all(admissions.map((a) => a.settle(usage(30))));
      const charged = charges.reduce((sum, c) => sum + (c ? c.charged : 0), 0);
      await expect.poll(async () => (await balance()).reserved, { timeout: 5_000, interval: 20 }).toBe(0);
      const after = await balance();
      expect(after.balance).toBeGreaterThanOrEqual(0);
      expect(after.total_used).toBeCloseTo(100 - after.balance, 6);
      expect(charged).toBeGreaterThanOrEqual(100 - after.balance - 1e-6);
      expect((await guards.billedRequests(prefix)).size).toBe(10);
      expect(await refusal(guards.admit(request(1)))).toBe('insufficient_balance');
    });

    it('concurrent holds never overspend: of 30 requests holding 10 each on 100 credits at most 10 are admitted, the rest refused 402', async () => {
      const { guards, request, usage, balance, prefix } = await setUp(100);
      const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => guards.admit(request(10))));
      const admitted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: string }).code] : []));
      expect(admitted.length).toBeGreaterThan(0);
      expect(admitted.length).toBeLessThanOrEqual(10);
      expect(new Set(refused)).toEqual(new Set(admitted.length === 30 ? [] : ['insufficient_balance']));
      await Promise.all(admitted.map((a) => a.settle(usage(10))));
      expect(await balance()).toMatchObject({ balance: 100 - 10 * admitted.length, reserved: 0, total_used: 10 * admitted.length });
      expect((await guards.billedRequests(prefix)).size).toBe(admitted.length);
    });

    it('settles exactly once: a second settle is a no-op, and a restart on the same data dir charges nothing again', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-credits-case-'));
      const first = await setUp(100, dataDir);
      const admission = await first.guards.admit(first.request(40));
      await admission.settle(first.usage(25));
      await admission.settle(first.usage(25));
      expect(await first.balance()).toMatchObject({ balance: 75, reserved: 0, total_used: 25 });
      await gw!.close();
      // The same data dir (and database) again: the ledger line is replayed or resent, never charged twice.
      gw = await makeGateway({ ...OUTPUT_ONLY, ...(await engine.config()) }, { dataDir });
      const guards = gw.gateway.deps.guards;
      if (!(guards instanceof AccountGuards)) throw new Error('account guards not wired');
      const account = gw.gateway.deps.store.cache.account(first.accountId)!;
      expect((await guards.usageViews.credits(account)).data.credits).toMatchObject({ balance: 75, reserved: 0, total_used: 25 });
      expect(await guards.billedRequests(first.prefix)).toEqual(new Set([`${first.prefix}1`]));
    });

    it("a request id admitted again while its first run goes on (a batch line run again): the first run's settlement charges the line and leaves the second's hold; the second charges nothing more and gives its hold back", async () => {
      // A key with a spend limit: admitted request by request (on PostgreSQL, a hold row of its own).
      const { guards, request, usage, balance, prefix } = await setUp(100, undefined, 1_000);
      const line = request(30);
      const first = await guards.admit(line);
      const second = await guards.admit({ ...line });
      await first.settle(usage(10));
      expect(await balance()).toMatchObject({ balance: 90, reserved: 30, total_used: 10 });
      await second.settle(usage(20));
      expect(await balance()).toMatchObject({ balance: 90, reserved: 0, total_used: 10 });
      expect(await guards.billedRequests(prefix)).toEqual(new Set([`${prefix}1`]));
    });

    it('a refund (an operator grant) shows in the balance at once and can be spent', async () => {
      const { guards, request, usage, balance, accountId } = await setUp(10);
      await (await guards.admit(request(10))).settle(usage(10));
      expect(await refusal(guards.admit(request(1)))).toBe('insufficient_balance');
      await gw!.gateway.deps.store.accounts.adjustCredits(accountId, 30);
      expect(await balance()).toMatchObject({ balance: 30, reserved: 0, total_used: 10 });
      await (await guards.admit(request(30))).settle(usage(30));
      expect(await balance()).toMatchObject({ balance: 0, reserved: 0, total_used: 40 });
    });

    it('the read views agree: balance, key spend and activity show the same usage as the ledger', async () => {
      const { guards, request, usage, balance, prefix, account, key } = await setUp(1_000);
      for (const tokens of [5, 7, 11]) await (await guards.admit(request(20))).settle(usage(tokens));
      const held = await guards.admit(request(50));
      expect(await balance()).toMatchObject({ balance: 1_000 - 23, reserved: 50, available: 1_000 - 23 - 50, total_used: 23 });
      const keyView = await guards.usageViews.key({ account, key });
      expect(keyView.data.usage).toBeCloseTo(creditsToUsd(23), 9);
      const activity = await guards.usageViews.activity(account.id, activityRange(Date.now()));
      expect(activity.data.reduce((sum, row) => sum + row.usage_credits, 0)).toBeCloseTo(23, 9);
      expect(activity.data.reduce((sum, row) => sum + row.requests, 0)).toBe(3);
      const page = await guards.usageViews.requests(account.id, { limit: 10 });
      expect(page.data.map((row) => row.request_id).sort()).toEqual([`${prefix}1`, `${prefix}2`, `${prefix}3`]);
      expect(page.data.reduce((sum, row) => sum + row.charged_credits, 0)).toBeCloseTo(23, 9);
      await held.settle(null);
      expect(await balance()).toMatchObject({ balance: 1_000 - 23, reserved: 0 });
    });
    it('a request\'s web searches round-trip: the ledger line, the requests page, activity and the operator\'s usage view count them; a line without searches has no field', async () => {
      const { guards, request, usage, account, prefix } = await setUp(1_000);
      const searched = (outputTokens: number, webSearchRequests: number): Settlement => {
        const settlement = usage(outputTokens);
        return { ...settlement, usage: { ...settlement.usage, webSearchRequests } };
      };
      await (await guards.admit(request(20))).settle(searched(5, 2));
      await (await guards.admit(request(20))).settle(usage(7));
      await (await guards.admit(request(20))).settle(searched(3, 1));
      const page = await guards.usageViews.requests(account.id, { limit: 10 });
      const byId = new Map(page.data.map((row) => [row.request_id, row]));
      expect(byId.get(`${prefix}1`)?.web_search_requests).toBe(2);
      expect(byId.get(`${prefix}2`)).not.toHaveProperty('web_search_requests');
      expect(byId.get(`${prefix}3`)?.web_search_requests).toBe(1);
      const activity = await guards.usageViews.activity(account.id, activityRange(Date.now()));
      expect(activity.data.reduce((sum, row) => sum + row.web_search_requests, 0)).toBe(3);
      const deps = gw!.gateway.deps;
      const storedCredits = async () => (await deps.store.accounts.list()).find((a) => a.id === account.id)?.credits;
      await expect.poll(storedCredits, { timeout: 5_000, interval: 20 }).toBeCloseTo(1_000 - 15, 9);
      const summary = await deps.credits.summarizeUsage([deps.store.cache.account(account.id)!]);
      expect(summary.usage.webSearchesInMonth(account.id, Date.now())).toBe(3);
      const caller = adminRouter.createCaller({ store: deps.store, clock: deps.clock, config: deps.config, dataDir: deps.dataDir, registry: async () => deps.registry, credits: deps.credits });
      const report = await caller.billing.usage({ account: account.email });
      expect(report.accounts).toEqual([expect.objectContaining({ requests: 3, month_tokens: 15, month_web_search_requests: 3 })]);
      expect(report.activity?.reduce((sum, row) => sum + row.web_search_requests, 0)).toBe(3);
    });

    it("the operator's usage view (summarizeUsage, billing.usage) answers per account for both engines: requests, spent credits, tokens in the month, the balance", async () => {
      const { guards, request, usage, account } = await setUp(1_000);
      for (const tokens of [5, 7, 11]) await (await guards.admit(request(20))).settle(usage(tokens));
      const idle = await gw!.account({ credits: 50, tier: 'enterprise' });
      const deps = gw!.gateway.deps;
      // The stored balance follows the charges (at once in process; on PostgreSQL once the outbox has sent their lines, within store.flushMs).
      const storedCredits = async () => (await deps.store.accounts.list()).find((a) => a.id === account.id)?.credits;
      await expect.poll(storedCredits, { timeout: 5_000, interval: 20 }).toBeCloseTo(1_000 - 23, 9);
      const accounts = await deps.store.accounts.list();
      const summary = await deps.credits.summarizeUsage(accounts);
      expect(summary.requests.get(account.id)).toBe(3);
      expect(summary.requests.get(idle.accountId)).toBeUndefined();
      expect(summary.usage.accountCredits(account.id)).toBeCloseTo(23, 9);
      expect(summary.usage.tokensInMonth(account.id, Date.now())).toBe(23);
      const stored = accounts.find((a) => a.id === account.id)!;
      expect(stored.credits - (summary.unbilled.get(account.id) ?? 0)).toBeCloseTo(1_000 - 23, 9);
      // Asked for one account, the same figures and no other account's.
      const one = await deps.credits.summarizeUsage([stored]);
      expect([...one.requests]).toEqual([[account.id, 3]]);
      // The admin procedure over the same port, no backend named.
      const caller = adminRouter.createCaller({ store: deps.store, clock: deps.clock, config: deps.config, dataDir: deps.dataDir, registry: async () => deps.registry, credits: deps.credits });
      const report = await caller.billing.usage({ account: stored.email });
      expect(report.accounts).toEqual([expect.objectContaining({ email: stored.email, balance: 1_000 - 23, spent_credits: 23, requests: 3, month_tokens: 23 })]);
      expect(report.activity?.reduce((sum, row) => sum + row.requests, 0)).toBe(3);
      const all = await caller.billing.usage({});
      expect(all.accounts.find((row) => row.email === stored.email)).toMatchObject({ requests: 3, spent_credits: 23 });
      const idleEmail = accounts.find((a) => a.id === idle.accountId)!.email;
      expect(all.accounts.find((row) => row.email === idleEmail)).toMatchObject({ balance: 50, spent_credits: 0, requests: 0, month_tokens: 0 });
    });
  });
}
