import type { Command } from 'commander';
import type { KeyView } from '../../admin/index.ts';
import { createKeyInput, setKeyInput } from '../../admin/index.ts';
import { withAdmin } from '../admin-client.ts';
import { newDataDirNote, recordsPlace, resolveContext } from '../context.ts';
import { print, printJson, printTable } from '../format-table.ts';
import { listOrAll, numberOrNone, textOrNone, validated } from '../parse-settings.ts';
import { createClock } from '../../util/index.ts';

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString().slice(0, 19) + 'Z');

/** revoked, expired or active, as of `nowSeconds` (by default the gateway's clock, which checks a key's expiry). */
export function keyStatus(key: { revoked_at: number | null; expires_at: number | null }, nowSeconds = createClock().now() / 1000): 'revoked' | 'expired' | 'active' {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && key.expires_at <= nowSeconds) return 'expired';
  return 'active';
}

/** Flags that set a key's scope and spend limit, on `keys create` and `keys set`. */
export interface KeyScopeFlags {
  models?: string;
  endpoints?: string;
  limit?: string;
  limitReset?: string;
}

function scopeInput(opts: KeyScopeFlags) {
  return {
    models: listOrAll(opts.models),
    endpoints: listOrAll(opts.endpoints),
    limit: numberOrNone(opts.limit),
    limitReset: textOrNone(opts.limitReset),
  };
}

/** `10 credits monthly (3.5 used)`, or `-`. */
export function describeLimit(k: Pick<KeyView, 'limit' | 'limit_reset' | 'limit_used'>): string {
  if (k.limit === null) return '-';
  const used = k.limit_used === null ? '' : ` (${k.limit_used} used)`;
  return `${k.limit} credits${k.limit_reset ? ` ${k.limit_reset}` : ''}${used}`;
}

/** `models mock/*; endpoints chat, images`, or `all`. */
export function describeScope(k: Pick<KeyView, 'models' | 'endpoints'>): string {
  const parts: string[] = [];
  if (k.models) parts.push(`models ${k.models.join(', ')}`);
  if (k.endpoints) parts.push(`endpoints ${k.endpoints.join(', ')}`);
  return parts.length ? parts.join('; ') : 'all';
}

/** `rpm 30/min; scope all; limit none; expires never`. */
function describeSettings(k: KeyView): string {
  const rpm = k.rpm === null ? 'from the account (tier, endpoint or default)' : `${k.rpm}/min`;
  return `rpm ${rpm}; scope ${describeScope(k)}; limit ${describeLimit(k) === '-' ? 'none' : describeLimit(k)}; expires ${iso(k.expires_at) ?? 'never'}`;
}

export async function createKeyCommand(
  cmd: Command,
  opts: { account?: string; name?: string; rpm?: string; expires?: string; json?: boolean } & KeyScopeFlags,
): Promise<void> {
  const input = validated(createKeyInput, { account: opts.account, name: opts.name, rpm: numberOrNone(opts.rpm) ?? undefined, expires: opts.expires, ...scopeInput(opts) });
  const ctx = await resolveContext(cmd);
  const note = newDataDirNote(ctx, 'key');
  const key = await withAdmin(ctx, (admin) => admin.keys.create.mutate(input));
  if (note) process.stderr.write(note);
  if (opts.json) return printJson(key);
  print(`Created key ${key.id} (${key.name}) for ${key.account}. It is shown once; store it now:`);
  print(`  ${key.key}`);
  if (key.rpm !== null || key.expires_at !== null || key.models || key.endpoints || key.limit !== null) print(`Settings: ${describeSettings(key)}.`);
}

export async function listKeysCommand(cmd: Command, opts: { account?: string; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const keys = await withAdmin(ctx, (admin) => admin.keys.list.query(opts.account === undefined ? undefined : { account: opts.account }), { readOnly: true });
  if (opts.json) return printJson(keys.map((k) => ({ ...k, status: keyStatus(k) })));
  if (keys.length === 0 && opts.account !== undefined) return print(`No API keys of ${opts.account}: \`gateway keys create --account ${opts.account}\` makes one.`);
  if (keys.length === 0) return print(`No API keys in ${recordsPlace(ctx)}: \`gateway keys create\` makes one (the first \`gateway serve\` on an empty data dir does too).`);
  printTable(
    ['ID', 'NAME', 'ACCOUNT', 'KEY', 'RPM', 'SCOPE', 'LIMIT', 'EXPIRES', 'LAST USED', 'STATUS'],
    keys.map((k) => [k.id, k.name, k.account, k.preview, k.rpm, describeScope(k), describeLimit(k), iso(k.expires_at), iso(k.last_used_at), keyStatus(k)]),
    // On a terminal: the free text cut, then what `keys set` and a revoke need least left out; the id stays whole.
    { shrink: ['NAME', 'ACCOUNT', 'SCOPE'], drop: ['LAST USED', 'KEY', 'EXPIRES', 'LIMIT', 'RPM'] },
  );
}

export async function revokeKeyCommand(cmd: Command, id: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const key = await withAdmin(ctx, (admin) => admin.keys.revoke.mutate({ id }), { existing: true });
  if (opts.json) return printJson(key);
  print(`Revoked key ${key.id} (${key.name}).`);
}

/** `gateway keys set <id> [--name] [--rpm] [--expires] [--models] [--endpoints] [--limit] [--limit-reset]`. */
export async function setKeyCommand(
  cmd: Command,
  id: string,
  opts: { name?: string; rpm?: string; expires?: string; json?: boolean } & KeyScopeFlags,
): Promise<void> {
  const rpm = numberOrNone(opts.rpm);
  const input = validated(setKeyInput, {
    id,
    name: opts.name,
    // 0 clears the key's own limit, like none.
    rpm: rpm === 0 ? null : rpm,
    expires: textOrNone(opts.expires),
    ...scopeInput(opts),
  });
  const ctx = await resolveContext(cmd);
  const key = await withAdmin(ctx, (admin) => admin.keys.set.mutate(input), { existing: true });
  if (opts.json) return printJson(key);
  print(`Key ${key.id} (${key.name}): ${describeSettings(key)}.`);
}
