import type { TRPCClient } from '@trpc/client';
import { z } from 'zod';
import { createAccount, createKey, findAccount, revokeKey, viewAccount, viewKey } from './accounts.ts';
import { procedure, router } from './trpc.ts';
import { mediaRouter } from './media-router.ts';
import { toModelObject } from '../providers/describe-model.ts';
import { GatewayError } from '../errors/index.ts';
import { billingRouter } from './billing-router.ts';

const tier = z.enum(['free', 'basic', 'fellow', 'pro', 'enterprise']);

const accountsRouter = router({
  create: procedure
    .input(z.object({ email: z.email(), password: z.string().min(8).optional(), tier: tier.optional(), credits: z.number().nonnegative().optional() }))
    .mutation(async ({ ctx, input }) => viewAccount(await createAccount(ctx.store, ctx.clock, input))),
  list: procedure.query(async ({ ctx }) => (await ctx.store.accounts.list()).map(viewAccount)),
  get: procedure.input(z.object({ email: z.string() })).query(async ({ ctx, input }) => viewAccount(await findAccount(ctx.store, input.email))),
});

const keysRouter = router({
  create: procedure
    .input(
      z.object({
        account: z.string().optional(),
        name: z.string().min(1).max(100).optional(),
        rpm: z.number().int().positive().optional(),
        expires: z.string().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { record, key, account } = await createKey(ctx.store, ctx.clock, input);
      const accounts = new Map([[account.id, account]]);
      return { ...viewKey(record, accounts), key };
    }),
  list: procedure.query(async ({ ctx }) => {
    const accounts = new Map((await ctx.store.accounts.list()).map((a) => [a.id, a]));
    return (await ctx.store.keys.list()).map((k) => viewKey(k, accounts));
  }),
  revoke: procedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    const record = await revokeKey(ctx.store, ctx.clock, input.id);
    const accounts = new Map((await ctx.store.accounts.list()).map((a) => [a.id, a]));
    return viewKey(record, accounts);
  }),
  set: procedure.input(z.object({ id: z.string(), rpm: z.number().int().positive().nullable() })).mutation(async ({ ctx, input }) => {
    const record = await ctx.store.keys.update(input.id, { rpm: input.rpm });
    if (!record) throw new GatewayError('not_found', `No API key with id ${input.id}.`);
    const accounts = new Map((await ctx.store.accounts.list()).map((a) => [a.id, a]));
    return viewKey(record, accounts);
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
  billing: billingRouter,
  status: procedure.query(({ ctx }) => ({ dataDir: ctx.dataDir, pid: process.pid })),
});

export type AdminRouter = typeof adminRouter;

/** A typed client of the admin procedures (over HTTP or in-process): what the CLI and the TUI hold. */
export type AdminClient = TRPCClient<AdminRouter>;
