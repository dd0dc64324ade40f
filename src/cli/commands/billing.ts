import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { resolveContext } from '../context.ts';
import { formatTable, print, printJson } from '../format-table.ts';
import { CliError } from '../run-action.ts';

type Tier = 'free' | 'basic' | 'fellow' | 'pro' | 'enterprise';

/** `gateway accounts credits <email> --add <n>` (a negative n takes credits away). */
export async function addCreditsCommand(cmd: Command, email: string, opts: { add: number; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const account = await withAdmin(ctx, (admin) => admin.billing.addCredits.mutate({ email, add: opts.add }));
  if (opts.json) return printJson(account);
  print(`${account.email}: ${opts.add >= 0 ? 'added' : 'took'} ${Math.abs(opts.add)} credits; balance ${account.credits} credits ($${(account.credits * 0.001).toFixed(6)}).`);
}

/** `gateway accounts set <email> [--tier] [--quota] [--rpm] [--suspended | --no-suspended]`. */
export async function setAccountCommand(
  cmd: Command,
  email: string,
  opts: { tier?: Tier; quota?: number | 'none'; rpm?: number | 'none'; suspended?: boolean; json?: boolean },
): Promise<void> {
  const ctx = await resolveContext(cmd);
  const orNull = (v: number | 'none' | undefined) => (v === 'none' ? null : v);
  if (opts.rpm === 0) throw new CliError('--rpm must be positive (none = tier default)', 2);
  const account = await withAdmin(ctx, (admin) =>
    admin.billing.setAccount.mutate({ email, tier: opts.tier, quota: orNull(opts.quota), rpm: orNull(opts.rpm), suspended: opts.suspended }),
  );
  if (opts.json) return printJson(account);
  const quota = account.monthly_token_quota === null ? 'unlimited' : `${account.monthly_token_quota} tokens/month`;
  const rpm = account.rpm === null ? 'tier default' : `${account.rpm}/min`;
  print(`${account.email}: tier ${account.tier}, quota ${quota}, rpm ${rpm}, ${account.suspended ? 'suspended' : 'active'}.`);
}

/** `gateway keys set <id> --rpm <n>` (0 clears the key's own limit). */
export async function setKeyCommand(cmd: Command, id: string, opts: { rpm: number; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const key = await withAdmin(ctx, (admin) => admin.keys.set.mutate({ id, rpm: opts.rpm === 0 ? null : opts.rpm }));
  if (opts.json) return printJson(key);
  print(`Key ${key.id} (${key.name}): rpm ${key.rpm === null ? 'from the account (tier, endpoint or default)' : `${key.rpm}/min`}.`);
}

/** `gateway usage [--account <email>] [--json]`: balances and spend per account, daily rows for one. */
export async function usageCommand(cmd: Command, opts: { account?: string; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const report = await withAdmin(ctx, (admin) => admin.billing.usage.query({ account: opts.account }));
  if (opts.json) return printJson(report);
  print(
    formatTable(
      ['ACCOUNT', 'TIER', 'BALANCE', 'SPENT', 'REQUESTS', 'TOKENS (MONTH)', 'QUOTA', 'STATUS'],
      report.accounts.map((a) => [a.email, a.tier, a.balance, a.spent_credits, a.requests, a.month_tokens, a.monthly_token_quota ?? 'unlimited', a.suspended ? 'suspended' : 'active']),
    ),
  );
  if (report.activity) {
    print('');
    print(
      report.activity.length === 0
        ? 'No activity in the last 30 days.'
        : formatTable(
            ['DATE', 'MODEL', 'REQUESTS', 'PROMPT', 'COMPLETION', 'CREDITS', 'USD'],
            report.activity.map((r) => [r.date, r.model, r.requests, r.prompt_tokens, r.completion_tokens, r.usage_credits, r.usage]),
          ),
    );
  }
  print('Amounts in credits (1 credit = 0.001 USD).');
}
