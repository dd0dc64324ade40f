import type { AccountRecord, ApiKeyRecord, KeyEndpoint, SessionRecord, SpendLimitReset, Tier } from '../types.ts';

/** Rows as PostgreSQL returns them (numeric and bigint parsed to numbers, see connect.ts). */
export interface AccountRow {
  id: string;
  email: string;
  password_hash: string | null;
  tier: string;
  credits: number;
  reserved: number;
  version: number;
  monthly_token_quota: number | null;
  suspended: boolean;
  rpm: number | null;
  created_at: number;
  billed_seq: number | null;
  spend_cap: number | null;
}

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  hash: string;
  preview: string;
  rpm: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  models: string[] | null;
  endpoints: string[] | null;
  spend_limit: number | null;
  limit_reset: string | null;
  last_used_at: number | null;
  version: number;
}

export interface SessionRow {
  id: string;
  account_id: string;
  hash: string;
  created_at: number;
  expires_at: number;
}

/** A row read from a notification (row_to_json): numeric and bigint columns arrive as JSON numbers. */
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function accountFromRow(row: AccountRow): AccountRecord {
  const record: AccountRecord = {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    tier: row.tier as Tier,
    credits: num(row.credits) ?? 0,
    monthlyTokenQuota: num(row.monthly_token_quota),
    suspended: row.suspended,
    rpm: num(row.rpm),
    createdAt: num(row.created_at) ?? 0,
  };
  if (row.billed_seq !== null && row.billed_seq !== undefined) record.billedSeq = num(row.billed_seq) ?? undefined;
  if (row.spend_cap !== null && row.spend_cap !== undefined) record.spendCap = num(row.spend_cap);
  return record;
}

export function accountParams(a: AccountRecord): unknown[] {
  return [a.id, a.email, a.passwordHash, a.tier, a.credits, a.monthlyTokenQuota, a.suspended, a.rpm, a.createdAt, a.billedSeq ?? null, a.spendCap ?? null];
}

export const ACCOUNT_INSERT = `insert into gw_accounts (id, email, password_hash, tier, credits, monthly_token_quota, suspended, rpm, created_at, billed_seq, spend_cap)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *`;

export function keyFromRow(row: KeyRow): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    hash: row.hash,
    preview: row.preview,
    rpm: num(row.rpm),
    expiresAt: num(row.expires_at),
    revokedAt: num(row.revoked_at),
    createdAt: num(row.created_at) ?? 0,
  };
  if (row.models != null) record.models = row.models;
  if (row.endpoints != null) record.endpoints = row.endpoints as KeyEndpoint[];
  if (row.spend_limit != null) record.limit = num(row.spend_limit);
  if (row.limit_reset != null) record.limitReset = row.limit_reset as SpendLimitReset;
  if (row.last_used_at != null) record.lastUsedAt = num(row.last_used_at);
  return record;
}

export function keyParams(k: ApiKeyRecord): unknown[] {
  return [
    k.id,
    k.accountId,
    k.name,
    k.hash,
    k.preview,
    k.rpm,
    k.expiresAt,
    k.revokedAt,
    k.createdAt,
    k.models == null ? null : JSON.stringify(k.models),
    k.endpoints == null ? null : JSON.stringify(k.endpoints),
    k.limit ?? null,
    k.limitReset ?? null,
    k.lastUsedAt ?? null,
  ];
}

export const KEY_INSERT = `insert into gw_api_keys (id, account_id, name, hash, preview, rpm, expires_at, revoked_at, created_at, models, endpoints, spend_limit, limit_reset, last_used_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning *`;

/** Every field of a key but its id, hash and owner, written back as a whole. */
export const KEY_UPDATE = `update gw_api_keys set name = $2, preview = $3, rpm = $4, expires_at = $5, revoked_at = $6, created_at = $7, models = $8, endpoints = $9,
  spend_limit = $10, limit_reset = $11, last_used_at = $12 where id = $1 returning *`;

export function keyUpdateParams(k: ApiKeyRecord): unknown[] {
  const p = keyParams(k);
  return [p[0], p[2], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13]];
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return { id: row.id, accountId: row.account_id, hash: row.hash, createdAt: num(row.created_at) ?? 0, expiresAt: num(row.expires_at) ?? 0 };
}
