import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/repositories.ts';
import type { AccountRecord, ApiKeyRecord, Tier } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import { generateApiKey, hashPassword, maskKey, newId, sha256 } from '../util/secrets.ts';

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
}

export function viewAccount(a: AccountRecord): AccountView {
  return {
    id: a.id,
    email: a.email,
    tier: a.tier,
    credits: a.credits,
    monthly_token_quota: a.monthlyTokenQuota,
    suspended: a.suspended,
    rpm: a.rpm,
    created_at: Math.floor(a.createdAt / 1000),
  };
}

export function viewKey(k: ApiKeyRecord, accounts: Map<string, AccountRecord>): KeyView {
  return {
    id: k.id,
    account: accounts.get(k.accountId)?.email ?? k.accountId,
    name: k.name,
    preview: k.preview,
    rpm: k.rpm,
    expires_at: k.expiresAt === null ? null : Math.floor(k.expiresAt / 1000),
    revoked_at: k.revokedAt === null ? null : Math.floor(k.revokedAt / 1000),
    created_at: Math.floor(k.createdAt / 1000),
  };
}

export interface CreateAccountInput {
  email: string;
  password?: string;
  tier?: Tier;
  credits?: number;
}

export async function createAccount(store: Store, clock: Clock, input: CreateAccountInput): Promise<AccountRecord> {
  if (await store.accounts.findByEmail(input.email)) {
    throw new GatewayError('conflict', `An account with email ${input.email} already exists.`);
  }
  return store.accounts.create({
    id: newId('acct'),
    email: input.email,
    passwordHash: input.password ? await hashPassword(input.password) : null,
    tier: input.tier ?? 'free',
    credits: input.credits ?? 0,
    monthlyTokenQuota: null,
    suspended: false,
    rpm: null,
    createdAt: clock.now(),
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

export interface CreateKeyInput {
  account?: string;
  name?: string;
  rpm?: number;
  /** Expiry as an ISO date or date-time. */
  expires?: string;
}

/** Creates an API key; the secret is returned here once and stored only as a hash. */
export async function createKey(store: Store, clock: Clock, input: CreateKeyInput): Promise<{ record: ApiKeyRecord; key: string; account: AccountRecord }> {
  const account = input.account ? await findAccount(store, input.account) : await defaultAccount(store, clock);
  let expiresAt: number | null = null;
  if (input.expires) {
    expiresAt = Date.parse(input.expires);
    if (Number.isNaN(expiresAt)) throw new GatewayError('validation_error', `--expires must be an ISO date, got '${input.expires}'.`, { details: { fields: { expires: 'not an ISO date' } } });
    if (expiresAt <= clock.now()) {
      const when = new Date(expiresAt).toISOString().slice(0, 19) + 'Z';
      throw new GatewayError('validation_error', `--expires must be in the future, got '${input.expires}' (${when}, already past): the key would never work.`, {
        details: { fields: { expires: 'in the past' } },
      });
    }
  }
  const key = generateApiKey();
  const record = await store.keys.create({
    id: newId('key', 16),
    accountId: account.id,
    name: input.name ?? 'default',
    hash: sha256(key),
    preview: maskKey(key),
    rpm: input.rpm ?? null,
    expiresAt,
    revokedAt: null,
    createdAt: clock.now(),
  });
  return { record, key, account };
}

export async function revokeKey(store: Store, clock: Clock, id: string): Promise<ApiKeyRecord> {
  const key = await store.keys.get(id);
  if (!key) throw new GatewayError('not_found', `No API key with id ${id}.`);
  if (key.revokedAt !== null) return key;
  return (await store.keys.update(id, { revokedAt: clock.now() }))!;
}
