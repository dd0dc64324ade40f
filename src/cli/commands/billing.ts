import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { noAccountsLine, resolveContext } from '../context.ts';
import { formatTable, print, printJson } from '../format-table.ts';
import { addCreditsInput, setAccountInput } from '../../admin/index.ts';
import { numberOrNone, validated } from '../parse-settings.ts';

import type { Tier } from '../../ir/index.ts';

/** `gateway accounts credits <email> --add <n>` (a negative n takes credits away). */
export async function addCreditsCommand(cmd: Command, email: string, opts: { add: number; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const input = validated(addCreditsInput, { email, add: opts.add });
  const account = await withAdmin(ctx, (admin) => admin.billing.addCredits.mutate(input), { existing: true });
  if (opts.json) return printJson(account);
  print(`${account.email}: ${opts.add >= 0 ? 'added' : 'took'} ${Math.abs(opts.add)} credits; balance ${account.credits} credits ($${(account.credits * 0.001).toFixed(6)}).`);
}

/** `gateway accounts set <email> [--tier] [--quota] [--rpm] [--spend-cap] [--password | --no-password] [--suspended | --no-suspended]`. */
export async function setAccountCommand(
  cmd: Command,
  email: string,
  opts: { tier?: Tier; quota?: string; rpm?: string; spendCap?: string; password?: string | false; suspended?: boolean; json?: boolean },
): Promise<void> {
  const input = validated(setAccountInput, {
    email,
    tier: opts.tier,
    quota: numberOrNone(opts.quota),
    rpm: numberOrNone(opts.rpm),
    spendCap: numberOrNone(opts.spendCap),
    password: opts.password === false ? null : opts.password,
    suspended: opts.suspended,
  });
  const ctx = await resolveContext(cmd);
  const account = await withAdmin(ctx, (admin) => admin.accounts.set.mutate(input), { existing: true });
  if (opts.json) return printJson(account);
  const quota = account.monthly_token_quota === null ? 'unlimited' : `${account.monthly_token_quota} tokens/month`;
  const rpm = account.rpm === null ? 'tier default' : `${account.rpm}/min`;
  const cap = account.spend_cap === null ? 'none' : `${account.spend_cap} credits/month`;
  const login = input.password === undefined ? '' : input.password === null ? ', password removed (cannot log in)' : ', password set';
  print(`${account.email}: tier ${account.tier}, quota ${quota}, rpm ${rpm}, spend cap ${cap}, ${account.suspended ? 'suspended' : 'active'}${login}.`);
}

/** `gateway accounts reset-password <email>`: a new random password, printed once. */
export async function resetPasswordCommand(cmd: Command, email: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const result = await withAdmin(ctx, (admin) => admin.accounts.resetPassword.mutate({ email }), { existing: true });
  if (opts.json) return printJson({ email: result.email, password: result.password });
  print(`New password for ${result.email} (shown once; its dashboard sessions have ended):`);
  print(`  ${result.password}`);
}

/** `gateway usage [--account <email>] [--json]`: balances and spend per account, daily rows for one. */
export async function usageCommand(cmd: Command, opts: { account?: string; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const report = await withAdmin(ctx, (admin) => admin.billing.usage.query({ account: opts.account }), { readOnly: true });
  if (opts.json) return printJson(report);
  if (report.accounts.length === 0) return print(noAccountsLine(ctx));
  print(
    formatTable(
      ['ACCOUNT', 'TIER', 'BALANCE', 'SPENT', 'REQUESTS', 'TOKENS (MONTH)', 'SEARCHES (MONTH)', 'QUOTA', 'STATUS'],
      report.accounts.map((a) => [
        a.email,
        a.tier,
        a.balance,
        a.spent_credits,
        a.requests,
        a.month_tokens,
        a.month_web_search_requests,
        a.monthly_token_quota ?? 'unlimited',
        a.suspended ? 'suspended' : 'active',
      ]),
    ),
  );
  if (report.activity) {
    print('');
    print(
      report.activity.length === 0
        ? 'No activity in the last 30 days.'
        : formatTable(
            ['DATE', 'MODEL', 'REQUESTS', 'PROMPT', 'COMPLETION', 'SEARCHES', 'CREDITS', 'USD'],
            report.activity.map((r) => [r.date, r.model, r.requests, r.prompt_tokens, r.completion_tokens, r.web_search_requests, r.usage_credits, r.usage]),
          ),
    );
  }
  print('Amounts in credits (1 credit = 0.001 USD).');
}
