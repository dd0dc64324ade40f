import path from 'node:path';
import { z } from 'zod';
import { applyGrant, roundCredits } from '../billing/index.ts';
import type { BilledAccount } from '../credits/index.ts';
import { GatewayError } from '../errors/index.ts';
import { activityRange, buildActivityView, UsageIndex } from '../usage/index.ts';
import { scanLedger } from '../store/index.ts';
import { findAccount, updateAccount, viewAccount } from './accounts.ts';
import { addCreditsInput, setAccountInput } from './settings-schema.ts';
import { procedure, router } from './trpc.ts';

/** One account in `gateway usage`. */
export interface AccountUsageRow {
  email: string;
  tier: string;
  /** Balance in credits, including ledger lines the store's snapshot does not hold yet. */
  balance: number;
  spent_credits: number;
  requests: number;
  month_tokens: number;
  monthly_token_quota: number | null;
  suspended: boolean;
}

/**
 * Operator procedures for balances, tiers, quotas and usage. They act on the store of
 * whoever owns the data dir (the running server, else the CLI), so no change races a charge.
 */
export const billingRouter = router({
  addCredits: procedure.input(addCreditsInput).mutation(async ({ ctx, input }) => {
    const account = await findAccount(ctx.store, input.email);
    // The balance stays a finite number in 0…MAX_BALANCE: 1e308 or a withdrawal past 0 is a 422.
    applyGrant(account.credits, input.add);
    const updated = await ctx.store.accounts.adjustCredits(account.id, input.add);
    return viewAccount(updated!);
  }),
  /** The same procedure as accounts.set (one schema, one rule set); kept under billing for older callers. */
  setAccount: procedure.input(setAccountInput).mutation(async ({ ctx, input }) => viewAccount(await updateAccount(ctx.store, input))),
  usage: procedure.input(z.object({ account: z.string().max(320).optional() })).query(async ({ ctx, input }) => {
    const now = ctx.clock.now();
    const accounts = (await ctx.store.accounts.list()) as BilledAccount[];
    const scoped = input.account ? [await findAccount(ctx.store, input.account)] : accounts;
    const ids = new Set(scoped.map((a) => a.id));
    const usage = new UsageIndex();
    const requests = new Map<string, number>();
    const unbilled = new Map<string, number>();
    const checkpoint = new Map(accounts.map((a) => [a.id, a.billedSeq ?? 0]));
    if (ctx.store.credits) {
      // Credits shared through the database: its ledger, summed per day; balances are current (no replay checkpoint).
      for (const row of await ctx.store.credits.usageTotals(input.account ? { accountId: scoped[0].id } : {})) {
        if (!ids.has(row.accountId)) continue;
        usage.addTotals(row);
        requests.set(row.accountId, (requests.get(row.accountId) ?? 0) + row.requests);
      }
    } else await scanLedger(path.join(ctx.dataDir, 'usage.jsonl'), (entry) => {
      if (!ids.has(entry.account_id)) return;
      usage.add(entry);
      requests.set(entry.account_id, (requests.get(entry.account_id) ?? 0) + 1);
      if (typeof entry.seq === 'number' && entry.seq > (checkpoint.get(entry.account_id) ?? 0)) {
        unbilled.set(entry.account_id, (unbilled.get(entry.account_id) ?? 0) + (entry.charged_credits ?? 0));
      }
    });
    const rows: AccountUsageRow[] = scoped.map((a) => ({
      email: a.email,
      tier: a.tier,
      balance: roundCredits(a.credits - (unbilled.get(a.id) ?? 0)),
      spent_credits: roundCredits(usage.accountCredits(a.id)),
      requests: requests.get(a.id) ?? 0,
      month_tokens: usage.tokensInMonth(a.id, now),
      monthly_token_quota: a.monthlyTokenQuota,
      suspended: a.suspended,
    }));
    const activity = input.account ? buildActivityView(usage, scoped[0].id, activityRange(now)).data : undefined;
    return { accounts: rows, activity };
  }),
});
