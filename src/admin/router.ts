import type { ActivitySnapshot } from '../observability/index.ts';
import type { TRPCClient } from '@trpc/client';
import { z } from 'zod';
import type { AccountRecord } from '../store/index.ts';
import { createAccount, createKey, findAccount, resetPassword, revokeKey, updateAccount, updateKey, viewAccount, viewKey, type ViewUsage } from './accounts.ts';
import { createAccountInput, createKeyInput, setAccountInput, setKeyInput } from './settings-schema.ts';
import { procedure, router, type AdminContext } from './trpc.ts';
import { mediaRouter } from './media-router.ts';
import { batchesRouter } from './batches-router.ts';
import { videosRouter } from './videos-router.ts';
import { toModelObject } from '../providers/index.ts';
import { billingRouter } from './billing-router.ts';

export type { ActivitySnapshot };

/** Spend aggregates for the views, when this gateway can give them. */
async function viewUsage(ctx: AdminContext): Promise<ViewUsage> {
  return { usage: await ctx.usage?.(), now: ctx.clock.now() };
}

async function accountsById(ctx: AdminContext): Promise<Map<string, AccountRecord>> {
  return new Map((await ctx.store.accounts.list()).map((a) => [a.id, a]));
}

const accountsRouter = router({
  create: procedure.input(createAccountInput).mutation(async ({ ctx, input }) => viewAccount(await createAccount(ctx.store, ctx.clock, input), await viewUsage(ctx))),
  list: procedure.query(async ({ ctx }) => {
    const spend = await viewUsage(ctx);
    return (await ctx.store.accounts.list()).map((a) => viewAccount(a, spend));
  }),
  get: procedure.input(z.object({ email: z.string() })).query(async ({ ctx, input }) => viewAccount(await findAccount(ctx.store, input.email), await viewUsage(ctx))),
  /** Tier, quota, RPM, suspension, monthly spend cap, password (null removes it); same rules as `gateway accounts set`. */
  set: procedure.input(setAccountInput).mutation(async ({ ctx, input }) => {
    const account = await updateAccount(ctx.store, input);
    await ctx.store.flush();
    return viewAccount(account, await viewUsage(ctx));
  }),
  /** A new random password, returned once; the account's sessions end. */
  resetPassword: procedure.input(z.strictObject({ email: z.string().trim().min(1).max(320) })).mutation(async ({ ctx, input }) => {
    const { account, password } = await resetPassword(ctx.store, input.email);
    await ctx.store.flush();
    return { ...viewAccount(account, await viewUsage(ctx)), password };
  }),
});

const keysRouter = router({
  create: procedure.input(createKeyInput).mutation(async ({ ctx, input }) => {
    const { record, key, account } = await createKey(ctx.store, ctx.clock, input);
    const accounts = new Map([[account.id, account]]);
    return { ...viewKey(record, accounts, await viewUsage(ctx)), key };
  }),
  /** Every key, or one account's (`account`: its email; an unknown email is not_found). */
  list: procedure.input(z.object({ account: z.string().min(1).max(320).optional() }).optional()).query(async ({ ctx, input }) => {
    const owner = input?.account === undefined ? undefined : await findAccount(ctx.store, input.account);
    const [accounts, spend] = await Promise.all([accountsById(ctx), viewUsage(ctx)]);
    return (await ctx.store.keys.list(owner?.id)).map((k) => viewKey(k, accounts, spend));
  }),
  revoke: procedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    const record = await revokeKey(ctx.store, ctx.clock, input.id);
    return viewKey(record, await accountsById(ctx), await viewUsage(ctx));
  }),
  /** Name, RPM, expiry, model and endpoint scopes, spend limit and its reset; same rules as `gateway keys set`. */
  set: procedure.input(setKeyInput).mutation(async ({ ctx, input }) => {
    const record = await updateKey(ctx.store, ctx.clock, input);
    return viewKey(record, await accountsById(ctx), await viewUsage(ctx));
  }),
});

const modelsRouter = router({
  list: procedure.query(async ({ ctx }) => (await ctx.registry()).models.map(toModelObject)),
});

/** The admin procedures, shared by the CLI (over HTTP or in-process) and the TUI. */
export const adminRouter = router({
  accounts: accountsRouter,
  keys: keysRouter,
  models: modelsRouter,
  media: mediaRouter,
  batches: batchesRouter,
  videos: videosRouter,
  billing: billingRouter,
  status: procedure.query(({ ctx }) => ({ dataDir: ctx.dataDir, pid: process.pid })),
  /** What the running server is doing now (the last minute, from memory); null when no server runs. */
  activity: procedure.query(({ ctx }): ActivitySnapshot | null => (ctx.activity ? ctx.activity() : null)),
});

export type AdminRouter = typeof adminRouter;

/** A typed client of the admin procedures (over HTTP or in-process): what the CLI and the TUI hold. */
export type AdminClient = TRPCClient<AdminRouter>;
