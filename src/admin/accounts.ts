import type { z } from 'zod';
import { balanceSchema, MAX_BALANCE, roundCredits } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';
import { isEmailTakenError } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import type { AccountRecord, ApiKeyRecord, KeyEndpoint, SpendLimitReset, Tier } from '../store/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { generateApiKey, hashPassword, maskKey, newId, randomToken, sha256 } from '../util/index.ts';
import type { createAccountInput, createKeyInput, setAccountInput, setKeyInput } from './settings-schema.ts';

export const DEFAULT_ACCOUNT_EMAIL = 'local@localhost';

/** An account as shown to operators (no password hash). */
export interface AccountView {
  id: string;
  email: string;
  tier: Tier;
  credits: number;
  monthly_token_quota: number | null;
  suspended: boolean;
  rpm: number | null;
  created_at: number;
  /** Credits the account may spend per UTC month; null = no cap. */
  spend_cap: number | null;
  /** Credits spent this UTC month (all keys); null when the caller did not look. */
  month_spent: number | null;
  /** Whether the account can log in to the dashboard. */
  has_password: boolean;
}

/** A key as shown to operators: never the secret. */
export interface KeyView {
  id: string;
  account: string;
  name: string;
  preview: string;
  rpm: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** Unix seconds of the last authenticated request (to the second), or null. */
  last_used_at: number | null;
  /** Model ids or globs the key may use; null = every model. */
  models: string[] | null;
  /** Endpoint groups the key may call; null = every endpoint. */
  endpoints: KeyEndpoint[] | null;
  /** Spend limit in credits; null = none. */
  limit: number | null;
  limit_reset: SpendLimitReset | null;
  /** Credits spent toward the limit in its current period; null without a limit or when not looked up. */
  limit_used: number | null;
}

/** What views may add from the usage aggregates (spend this period). */
export interface ViewUsage {
  usage?: UsageIndex;
  now: number;
}

const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : Math.floor(ms / 1000));

export function viewAccount(a: AccountRecord, spend?: ViewUsage): AccountView {
  return {
    id: a.id,
    email: a.email,
    tier: a.tier,
    credits: a.credits,
    monthly_token_quota: a.monthlyTokenQuota,
    suspended: a.suspended,
    rpm: a.rpm,
    created_at: Math.floor(a.createdAt / 1000),
    spend_cap: a.spendCap ?? null,
    month_spent: spend?.usage ? roundCredits(spend.usage.accountCreditsInMonth(a.id, spend.now)) : null,
    has_password: Boolean(a.passwordHash),
  };
}

export function viewKey(k: ApiKeyRecord, accounts: Map<string, AccountRecord>, spend?: ViewUsage): KeyView {
  const limit = k.limit ?? null;
  return {
    id: k.id,
    account: accounts.get(k.accountId)?.email ?? k.accountId,
    name: k.name,
    preview: k.preview,
    rpm: k.rpm,
    expires_at: seconds(k.expiresAt),
    revoked_at: seconds(k.revokedAt),
    created_at: Math.floor(k.createdAt / 1000),
    last_used_at: seconds(k.lastUsedAt),
    models: k.models ?? null,
    endpoints: k.endpoints ?? null,
    limit,
    limit_reset: k.limitReset ?? null,
    limit_used: limit !== null && spend?.usage ? roundCredits(spend.usage.keyCreditsIn(k.id, k.limitReset, spend.now)) : null,
  };
}

export type CreateAccountInput = z.output<typeof createAccountInput>;

export async function createAccount(store: Store, clock: Clock, input: CreateAccountInput): Promise<AccountRecord> {
  if (input.credits !== undefined && !balanceSchema.safeParse(input.credits).success) {
    throw new GatewayError('validation_error', `Invalid parameter 'credits': must be a finite number from 0 to ${MAX_BALANCE}.`, { details: { fields: { credits: `must be a finite number from 0 to ${MAX_BALANCE}` } } });
  }
  const taken = () => new GatewayError('conflict', `An account with email ${input.email} already exists.`);
  if (await store.accounts.findByEmail(input.email)) throw taken();
  const record: AccountRecord = {
    id: newId('acct'),
    email: input.email,
    passwordHash: input.password ? await hashPassword(input.password) : null,
    tier: input.tier ?? 'free',
    credits: input.credits ?? 0,
    monthlyTokenQuota: input.quota ?? null,
    suspended: false,
    rpm: null,
    createdAt: clock.now(),
  };
  if (input.spendCap !== undefined && input.spendCap !== null) record.spendCap = input.spendCap;
  // Another create may have passed the check above meanwhile (another instance, or a request in
  // flight here while the password was hashed): the store refuses the second one.
  return store.accounts.create(record).catch((error: unknown) => {
    throw isEmailTakenError(error) ? taken() : error;
  });
}

export async function findAccount(store: Store, email: string): Promise<AccountRecord> {
  const account = await store.accounts.findByEmail(email);
  if (!account) throw new GatewayError('not_found', `No account with email ${email}.`);
  return account;
}

/** The account keys go to when none is named: the local default, created on first use. */
export async function defaultAccount(store: Store, clock: Clock): Promise<AccountRecord> {
  const existing = (await store.accounts.findByEmail(DEFAULT_ACCOUNT_EMAIL)) ?? (await store.accounts.list())[0];
  if (existing) return existing;
  return createAccount(store, clock, { email: DEFAULT_ACCOUNT_EMAIL, tier: 'enterprise', credits: 1_000_000 });
}

/** Ends every dashboard session of an account (its password changed, so old logins must not last). */
async function endSessions(store: Store, accountId: string): Promise<void> {
  await store.sessions.deleteForAccount(accountId);
}

/**
 * Changes an account's tier, quota, RPM, suspension, spend cap or password (validated by
 * `setAccountInput`). A new or removed password ends the account's dashboard sessions.
 */
export async function updateAccount(store: Store, input: z.output<typeof setAccountInput>): Promise<AccountRecord> {
  const account = await findAccount(store, input.email);
  const patch: Partial<AccountRecord> = {};
  if (input.tier !== undefined) patch.tier = input.tier;
  if (input.quota !== undefined) patch.monthlyTokenQuota = input.quota;
  if (input.rpm !== undefined) patch.rpm = input.rpm;
  if (input.suspended !== undefined) patch.suspended = input.suspended;
  if (input.spendCap !== undefined) patch.spendCap = input.spendCap;
  if (input.password !== undefined) patch.passwordHash = input.password === null ? null : await hashPassword(input.password);
  const updated = (await store.accounts.update(account.id, patch))!;
  if (input.password !== undefined) await endSessions(store, account.id);
  return updated;
}

/** Sets a new random password (returned once, stored only hashed) and ends the account's sessions. */
export async function resetPassword(store: Store, email: string): Promise<{ account: AccountRecord; password: string }> {
  const password = randomToken(20);
  const account = await updateAccount(store, { email, password });
  return { account, password };
}

export type CreateKeyInput = z.output<typeof createKeyInput>;
type KeySettings = Omit<CreateKeyInput, 'account'>;

/** Expiry text (validated ISO) as ms; null clears it. A past expiry is refused: the key would never work (revoke stops a key). */
function expiryOf(expires: string | null, now: number): number | null {
  if (expires === null) return null;
  const at = Date.parse(expires);
  if (Number.isNaN(at)) throw new GatewayError('validation_error', `--expires must be an ISO date, got '${expires}'.`, { details: { fields: { expires: 'not an ISO date' } } });
  if (at <= now) {
    const when = new Date(at).toISOString().slice(0, 19) + 'Z';
    throw new GatewayError('validation_error', `--expires must be in the future, got '${expires}' (${when}, already past): the key would never work.`, {
      details: { fields: { expires: 'in the past' } },
    });
  }
  return at;
}

/** The record fields a settings input changes (undefined = leave as is, null = clear). */
function keyPatch(input: KeySettings, now: number): Partial<ApiKeyRecord> {
  const patch: Partial<ApiKeyRecord> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.rpm !== undefined) patch.rpm = input.rpm;
  if (input.expires !== undefined) patch.expiresAt = expiryOf(input.expires, now);
  if (input.models !== undefined) patch.models = input.models === null ? null : [...new Set(input.models)];
  if (input.endpoints !== undefined) patch.endpoints = input.endpoints === null ? null : [...new Set(input.endpoints)];
  if (input.limit !== undefined) patch.limit = input.limit;
  if (input.limitReset !== undefined) patch.limitReset = input.limitReset;
  return patch;
}

/** Creates an API key; the secret is returned here once and stored only as a hash. */
export async function createKey(store: Store, clock: Clock, input: CreateKeyInput): Promise<{ record: ApiKeyRecord; key: string; account: AccountRecord }> {
  const account = input.account ? await findAccount(store, input.account) : await defaultAccount(store, clock);
  const key = generateApiKey();
  const { name, rpm, expiresAt, ...scope } = keyPatch(input, clock.now());
  const record = await store.keys.create({
    id: newId('key', 16),
    accountId: account.id,
    name: name ?? 'default',
    hash: sha256(key),
    preview: maskKey(key),
    rpm: rpm ?? null,
    expiresAt: expiresAt ?? null,
    revokedAt: null,
    createdAt: clock.now(),
    ...scope,
  });
  return { record, key, account };
}

/** Changes a key's name, RPM, expiry, scopes or spend limit (validated by `setKeyInput`). */
export async function updateKey(store: Store, clock: Clock, input: z.output<typeof setKeyInput>): Promise<ApiKeyRecord> {
  const { id, ...settings } = input;
  const record = await store.keys.update(id, keyPatch(settings, clock.now()));
  if (!record) throw keyNotFound(store, id);
  return record;
}

/**
 * The error for an id no key has. A key's secret in its place (all a first-run user was shown)
 * is named as such, with the key's id when a live key has it, and never echoed back.
 */
function keyNotFound(store: Store, id: string): GatewayError {
  if (!id.startsWith('sk-')) return new GatewayError('not_found', `No API key with id ${id}.`);
  const record = store.cache.keyByHash(sha256(id));
  return new GatewayError(
    'not_found',
    record
      ? `That is an API key's secret, not its id: this key's id is ${record.id} (${record.name}); \`gateway keys ls\` lists the ids.`
      : "That is an API key's secret, not its id, and no active key has it: ids look like key_…; `gateway keys ls` lists them.",
  );
}

export async function revokeKey(store: Store, clock: Clock, id: string): Promise<ApiKeyRecord> {
  const key = await store.keys.get(id);
  if (!key) throw keyNotFound(store, id);
  if (key.revokedAt !== null) return key;
  return (await store.keys.update(id, { revokedAt: clock.now() }))!;
}
