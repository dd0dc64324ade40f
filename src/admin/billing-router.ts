import { z } from 'zod';
import { applyGrant, roundCredits } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';
import { activityRange, buildActivityView } from '../usage/index.ts';
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
  /** Hosted web searches in the UTC month (the ledger's `web_search_requests`). */
  month_web_search_requests: number;
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
    const scoped = input.account ? [await findAccount(ctx.store, input.account)] : await ctx.store.accounts.list();
    const { usage, requests, unbilled } = await ctx.credits.summarizeUsage(scoped);
    const rows: AccountUsageRow[] = scoped.map((a) => ({
      email: a.email,
      tier: a.tier,
      balance: roundCredits(a.credits - (unbilled.get(a.id) ?? 0)),
      spent_credits: roundCredits(usage.accountCredits(a.id)),
      requests: requests.get(a.id) ?? 0,
      month_tokens: usage.tokensInMonth(a.id, now),
      month_web_search_requests: usage.webSearchesInMonth(a.id, now),
      monthly_token_quota: a.monthlyTokenQuota,
      suspended: a.suspended,
    }));
    const activity = input.account ? buildActivityView(usage, scoped[0].id, activityRange(now)).data : undefined;
    return { accounts: rows, activity };
  }),
});
