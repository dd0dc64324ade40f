import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { resolveContext } from '../context.ts';
import { formatTable, print, printJson } from '../format-table.ts';

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString().slice(0, 19) + 'Z');

/** revoked, expired or active, as of `nowSeconds`. */
export function keyStatus(key: { revoked_at: number | null; expires_at: number | null }, nowSeconds = Date.now() / 1000): 'revoked' | 'expired' | 'active' {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && key.expires_at <= nowSeconds) return 'expired';
  return 'active';
}

export async function createKeyCommand(
  cmd: Command,
  opts: { account?: string; name?: string; rpm?: number; expires?: string; json?: boolean },
): Promise<void> {
  const ctx = await resolveContext(cmd);
  const key = await withAdmin(ctx, (admin) => admin.keys.create.mutate({ account: opts.account, name: opts.name, rpm: opts.rpm, expires: opts.expires }));
  if (opts.json) return printJson(key);
  print(`Created key ${key.id} (${key.name}) for ${key.account}. It is shown once; store it now:`);
  print(`  ${key.key}`);
}

export async function listKeysCommand(cmd: Command, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const keys = await withAdmin(ctx, (admin) => admin.keys.list.query());
  if (opts.json) return printJson(keys.map((k) => ({ ...k, status: keyStatus(k) })));
  print(
    formatTable(
      ['ID', 'NAME', 'ACCOUNT', 'KEY', 'RPM', 'EXPIRES', 'STATUS'],
      keys.map((k) => [k.id, k.name, k.account, k.preview, k.rpm, iso(k.expires_at), keyStatus(k)]),
    ),
  );
}

export async function revokeKeyCommand(cmd: Command, id: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const key = await withAdmin(ctx, (admin) => admin.keys.revoke.mutate({ id }));
  if (opts.json) return printJson(key);
  print(`Revoked key ${key.id} (${key.name}).`);
}
