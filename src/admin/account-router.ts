import { initTRPC } from '@trpc/server';
import { z } from 'zod';
import { keyEndpoints } from '../accounts/index.ts';
import type { UsageViews } from '../accounts/index.ts';
import { cancelBatch, viewBatch } from '../batches/index.ts';
import { creditsToUsd, roundCredits } from '../billing/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import { GatewayError } from '../errors/index.ts';
import { toModelObject } from '../providers/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import { isFileExpired, type Store } from '../store/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/index.ts';
import { ACTIVITY_DAYS, activityRange, type UsageIndex } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { createKey, revokeKey, updateKey, viewKey } from './accounts.ts';
import { createOwnKeyInput, setOwnKeyInput } from './settings-schema.ts';
import { errorFormatter, mappedError } from './trpc.ts';
import { summarizeActivity, viewLedgerRow } from './view-account-usage.ts';

/** What the dashboard's procedures run against: one signed-in account, never another. */
export interface AccountContext {
  account: AccountRecord;
  /** Unix seconds the session ends. */
  sessionExpiresAt: number;
  store: Store;
  clock: Clock;
  config: GatewayConfig;
  registry: ProviderRegistry;
  /** The server's usage views (balance, activity, the ledger's pages); absent without usage accounts. */
  views?: UsageViews;
  /** Spend aggregates for key limits. */
  usage?: () => Promise<UsageIndex>;
}

const t = initTRPC.context<AccountContext>().create({ errorFormatter });
const procedure = t.procedure.use(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) ctx.store.database?.failed(result.error.cause);
  const mapped = result.ok ? undefined : mappedError(result.error.cause);
  if (mapped) throw mapped;
  return result;
});

const page = { page: z.number().int().min(1).max(100_000).default(1), pageSize: z.number().int().min(1).max(100).default(20) };

function viewsOf(ctx: AccountContext): UsageViews {
  if (!ctx.views) throw new GatewayError('service_unavailable', 'Usage accounting is not enabled on this server.');
  return ctx.views;
}

async function ownKey(ctx: AccountContext, id: string): Promise<ApiKeyRecord> {
  const key = await ctx.store.keys.get(id);
  // Another account's key is not there for this one (spec §5 rule 3, as for media records).
  if (!key || key.accountId !== ctx.account.id) throw new GatewayError('not_found', `No API key with id ${id}.`);
  return key;
}

async function viewOwnKey(ctx: AccountContext, record: ApiKeyRecord) {
  return viewKey(record, new Map([[ctx.account.id, ctx.account]]), { usage: await ctx.usage?.(), now: ctx.clock.now() });
}

/** Keys an account may make itself on the dashboard, revoked ones included (the operator's CLI is not held to it). */
const MAX_OWN_KEYS = 1_000;

const keysRouter = t.router({
  list: procedure.input(z.object({ ...page, revoked: z.boolean().default(true) })).query(async ({ ctx, input }) => {
    const all = (await ctx.store.keys.list(ctx.account.id)).filter((k) => input.revoked || k.revokedAt === null).sort((a, b) => b.createdAt - a.createdAt);
    const usage = { usage: await ctx.usage?.(), now: ctx.clock.now() };
    const accounts = new Map([[ctx.account.id, ctx.account]]);
    const slice = all.slice((input.page - 1) * input.pageSize, input.page * input.pageSize);
    return { data: slice.map((k) => viewKey(k, accounts, usage)), total: all.length, page: input.page, page_size: input.pageSize, has_more: input.page * input.pageSize < all.length };
  }),
  /** The secret is in this answer only; the store keeps its hash. */
  create: procedure.input(createOwnKeyInput).mutation(async ({ ctx, input }) => {
    // Keys are never deleted (a revoked one stays, for its ledger lines): a create-and-revoke loop would grow every key read and the store's file without end.
    const held = (await ctx.store.keys.list(ctx.account.id)).length;
    if (held >= MAX_OWN_KEYS) {
      throw new GatewayError('quota_exceeded', `An account may have at most ${MAX_OWN_KEYS} API keys, revoked ones included (it has ${held}); reuse one, or ask the operator (gateway keys create).`, {
        details: { max_keys: MAX_OWN_KEYS, keys: held },
      });
    }
    const { record, key } = await createKey(ctx.store, ctx.clock, { ...input, account: ctx.account.email });
    return { ...(await viewOwnKey(ctx, record)), key };
  }),
  revoke: procedure.input(z.object({ id: z.string().min(1).max(64) })).mutation(async ({ ctx, input }) => {
    await ownKey(ctx, input.id);
    return viewOwnKey(ctx, await revokeKey(ctx.store, ctx.clock, input.id));
  }),
  set: procedure.input(setOwnKeyInput).mutation(async ({ ctx, input }) => {
    await ownKey(ctx, input.id);
    return viewOwnKey(ctx, await updateKey(ctx.store, ctx.clock, input));
  }),
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const usageRouter = t.router({
  /** Spend and tokens per UTC day and model between two days (at most the last 30, what the index holds). */
  daily: procedure.input(z.object({ from: z.string().regex(DAY), to: z.string().regex(DAY) })).query(async ({ ctx, input }) => {
    const range = activityRange(ctx.clock.now());
    const from = input.from < range.from ? range.from : input.from;
    const to = input.to > range.to ? range.to : input.to;
    return { from, to, data: (await viewsOf(ctx).activity(ctx.account.id, { from, to })).data };
  }),
  /** Settled requests, newest first, a page at a time (`cursor` from the previous page). */
  requests: procedure.input(z.object({ cursor: z.string().max(64).optional(), limit: z.number().int().min(1).max(500).default(50) })).query(async ({ ctx, input }) => {
    const result = await viewsOf(ctx).requests(ctx.account.id, input);
    return { data: result.data.map(viewLedgerRow), next: result.next };
  }),
});

const modelsRouter = t.router({
  /** The catalog `GET /v1/models` knows, searched and filtered here, a page at a time. */
  list: procedure
    .input(z.object({ ...page, q: z.string().trim().max(200).optional(), type: z.string().max(40).optional(), capability: z.string().max(40).optional() }))
    .query(({ ctx, input }) => {
      const q = input.q?.toLowerCase();
      const all = ctx.registry.models
        .filter((m) => !input.type || (m.spec.type ?? 'chat') === input.type)
        .filter((m) => !input.capability || (m.spec.capabilities ?? []).includes(input.capability as never))
        .filter((m) => !q || m.id.toLowerCase().includes(q) || (m.spec.displayName ?? '').toLowerCase().includes(q));
      const types = [...new Set(ctx.registry.models.map((m) => m.spec.type ?? 'chat'))].sort();
      const capabilities = [...new Set(ctx.registry.models.flatMap((m) => m.spec.capabilities ?? []))].sort();
      const data = all.slice((input.page - 1) * input.pageSize, input.page * input.pageSize).map(toModelObject);
      return { data, total: all.length, page: input.page, page_size: input.pageSize, has_more: input.page * input.pageSize < all.length, types, capabilities };
    }),
});

async function ownBatch(ctx: AccountContext, id: string) {
  const record = await ctx.store.batches.get(id);
  if (!record || record.accountId !== ctx.account.id) throw new GatewayError('not_found', `No batch with id '${id}'.`);
  return record;
}

/** The largest file the dashboard downloads through a procedure (bigger ones: `GET /v1/files/{id}/content` with a key). */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

const batchesRouter = t.router({
  list: procedure.input(z.object({ after: z.string().max(100).optional(), limit: z.number().int().min(1).max(100).default(20) })).query(async ({ ctx, input }) => {
    const result = await ctx.store.batches.list({ accountId: ctx.account.id, after: input.after, limit: input.limit });
    return { data: result.data.map(viewBatch), has_more: result.hasMore };
  }),
  get: procedure.input(z.object({ id: z.string().min(1).max(100) })).query(async ({ ctx, input }) => viewBatch(await ownBatch(ctx, input.id))),
  cancel: procedure.input(z.object({ id: z.string().min(1).max(100) })).mutation(async ({ ctx, input }) => {
    const next = await cancelBatch(ctx, await ownBatch(ctx, input.id));
    await ctx.store.flush();
    return viewBatch(next);
  }),
  /** An output or error file's text, for the browser to save. */
  file: procedure.input(z.object({ id: z.string().min(1).max(100) })).query(async ({ ctx, input }) => {
    const record = await ctx.store.files.get(ctx.account.id, input.id);
    // An expired upload (a Gemini file past its 48 hours) is gone to its owner here too, not only once the sweep deletes it.
    if (!record || isFileExpired(record, ctx.clock.now())) throw new GatewayError('file_not_found', `No file with id '${input.id}'.`);
    if (record.bytes > MAX_DOWNLOAD_BYTES) throw new GatewayError('request_too_large', `The file is ${record.bytes} bytes; download it with GET /v1/files/${record.id}/content and an API key.`);
    const content = await ctx.store.files.content(ctx.account.id, input.id);
    return { id: record.id, filename: record.filename, content: content?.toString('utf8') ?? '' };
  }),
});

/** The dashboard's procedures (`/api/trpc/*`): a signed-in account's own data, nothing else. */
export const accountRouter = t.router({
  me: procedure.query(({ ctx }) => ({
    email: ctx.account.email,
    tier: ctx.account.tier,
    session_expires_at: ctx.sessionExpiresAt,
    /** The endpoint groups a key can be scoped to (the formats' and the other routes'). */
    key_endpoints: keyEndpoints(),
  })),
  /** Balance, spend this month, requests per day and top models of the last 30 days. */
  overview: procedure.query(async ({ ctx }) => {
    const views = viewsOf(ctx);
    const range = activityRange(ctx.clock.now());
    const [credits, activity] = await Promise.all([views.credits(ctx.account), views.activity(ctx.account.id, range)]);
    const month = range.to.slice(0, 7);
    const monthCredits = activity.data.filter((r) => r.date.startsWith(month)).reduce((sum, r) => sum + r.usage_credits, 0);
    return {
      credits,
      month: { credits: roundCredits(monthCredits), usd: creditsToUsd(monthCredits) },
      days: ACTIVITY_DAYS,
      ...summarizeActivity(activity.data, range),
    };
  }),
  keys: keysRouter,
  usage: usageRouter,
  models: modelsRouter,
  batches: batchesRouter,
});

export type AccountRouter = typeof accountRouter;
