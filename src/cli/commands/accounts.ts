import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { newDataDirNote, noAccountsLine, resolveContext } from '../context.ts';
import { createAccountInput } from '../../admin/index.ts';
import { print, printJson, printTable } from '../format-table.ts';
import { numberOrNone, validated } from '../parse-settings.ts';

import type { Tier } from '../../ir/index.ts';

export async function createAccountCommand(
  cmd: Command,
  opts: { email: string; password?: string; tier?: Tier; credits?: string; quota?: string; spendCap?: string; json?: boolean },
): Promise<void> {
  const input = validated(createAccountInput, {
    email: opts.email,
    password: opts.password,
    tier: opts.tier,
    credits: numberOrNone(opts.credits) ?? undefined,
    quota: numberOrNone(opts.quota),
    spendCap: numberOrNone(opts.spendCap),
  });
  const ctx = await resolveContext(cmd);
  const note = newDataDirNote(ctx, 'account');
  const account = await withAdmin(ctx, (admin) => admin.accounts.create.mutate(input));
  if (note) process.stderr.write(note);
  if (opts.json) printJson(account);
  else print(`Created account ${account.email} (${account.id}), tier ${account.tier}, ${account.credits} credits.`);
}

export async function listAccountsCommand(cmd: Command, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const accounts = await withAdmin(ctx, (admin) => admin.accounts.list.query(), { readOnly: true });
  if (opts.json) return printJson(accounts);
  if (accounts.length === 0) return print(noAccountsLine(ctx));
  printTable(
    ['ID', 'EMAIL', 'TIER', 'CREDITS', 'QUOTA', 'SPEND CAP', 'SUSPENDED'],
    accounts.map((a) => [a.id, a.email, a.tier, a.credits, a.monthly_token_quota, a.spend_cap === null ? null : `${a.month_spent ?? 0}/${a.spend_cap}`, a.suspended ? 'yes' : 'no']),
    // On a terminal: the email cut, then the limits left out; the id stays whole.
    { shrink: ['EMAIL'], drop: ['SPEND CAP', 'QUOTA'] },
  );
}
