/**
 * The account and key a billing e2e test charges: an enterprise account with 100,000 credits
 * and a key with a spend limit, made with the real CLI before the gateway starts; what the key
 * has spent, read from `GET /v1/key`.
 */
import { expect } from 'vitest';
import { runCli } from './spawn-gateway.ts';

/** Creates `email`'s account (with `credits`) and a key limited to `limit` credits (null: no limit of its own); the key's secret. */
export async function createFundedKey(configFile: string, dataDir: string, email: string, limit: number | null = 10_000, credits = 100_000): Promise<string> {
  const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
  expect((await cli(['accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', String(credits)])).exitCode).toBe(0);
  const created = await cli(['keys', 'create', '--account', email, '--json', ...(limit === null ? [] : ['--limit', String(limit)])]);
  return (JSON.parse(String(created.stdout)) as { key: string }).key;
}

/** The credits `key` has used so far. */
export async function creditsUsed(gatewayUrl: string, key: string): Promise<number> {
  const res = await fetch(`${gatewayUrl}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { data: { limit_credits: { used: number } } }).data.limit_credits.used;
}
