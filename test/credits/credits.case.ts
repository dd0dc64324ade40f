/**
 * The credits contract, one suite for both engines (issue 21 §3): the in-process one (file
 * store: credit book + usage.jsonl) and the shared one (PostgreSQL: holds, slices, outbox).
 * It speaks only the guards' money surface — admit (hold), settle (charge or release),
 * billedRequests and the credits view — so the same cases hold whichever engine is behind it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards, type Admission, type AdmissionRequest } from '../../src/accounts/index.ts';
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
    async function setUp(credits: number) {
      gw = await makeGateway({ ...OUTPUT_ONLY, ...(await engine.config()) });
      const guards = gw.gateway.deps.guards;
      if (!(guards instanceof AccountGuards)) throw new Error('account guards not wired');
      const { accountId } = await gw.account({ credits, tier: 'enterprise' });
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
      return { guards, request, usage, balance, prefix };
    }

    const refusal = (p: Promise<Admission>) => p.then(() => 'admitted', (e: { code?: string }) => e.code);

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
  });
}
