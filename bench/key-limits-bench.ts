/**
 * What key scopes, key spend limits and account spend caps add to the request guards:
 * µs per `admit` + `settle` (memory limiter, limits that never throttle) for a plain key (the
 * baseline, measured in the same run) and for keys carrying each setting, as ratios to it.
 * Run by hand: `node --import tsx bench/key-limits-bench.ts`. Rounds alternate the cases so
 * load on a shared machine falls on all of them alike; the median round is reported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAccountGuards } from '../src/app/open-credits.ts';
import type { AdmissionRequest } from '../src/accounts/types.ts';
import { createAccount, createKey, type CreateKeyInput } from '../src/admin/accounts.ts';
import { parseConfig } from '../src/config/index.ts';
import type { Settlement } from '../src/pipeline/types.ts';
import { ProviderRegistry } from '../src/providers/registry.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { systemClock } from '../src/util/clock.ts';
import { createLogger } from '../src/util/logger.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const N = Number(process.env.N ?? 50_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-key-limits-bench-'));
const config = parseConfig({
  providers: { mock: { plugin: 'mock' }, other: { plugin: 'mock' } },
  limits: { default: null, tiers: { pro: null }, endpoints: { 'POST /v1/chat/completions': null }, concurrency: { default: null, tiers: { pro: null } } },
});
const log = createLogger('silent');
const store = await FileStore.open(dataDir);
const registry = await ProviderRegistry.create(config, { configDir: ROOT, log });
const guards = await openAccountGuards({ config, store, registry, clock: systemClock, log, dataDir });
const model = registry.get('mock/echo')!;
const settlement: Settlement = { model, usage: { inputTokens: 500, outputTokens: 200 }, estimated: false, aborted: false };

/** One account (optionally with a spend cap) and one key with `settings`; returns the admit+settle op. */
async function caseFor(name: string, settings: Omit<CreateKeyInput, 'account'>, spendCap?: number) {
  const account = await createAccount(store, systemClock, { email: `${name.replace(/\W+/g, '-')}@bench.test`, tier: 'pro', credits: 1e9, spendCap });
  const { record } = await createKey(store, systemClock, { account: account.email, ...settings });
  const request: AdmissionRequest = { auth: { account, key: record }, method: 'POST', route: '/v1/chat/completions', clientAddress: '127.0.0.1', model: 'mock/echo', estimatedInputTokens: 500, maxOutputTokens: 256 };
  return { name, op: async () => (await guards.admit(request)).settle(settlement) };
}

const cases = [
  await caseFor('plain key (baseline)', {}),
  await caseFor('models scope (2 globs)', { models: ['mock/*', 'claude-*'] }),
  await caseFor('endpoints scope', { endpoints: ['chat', 'images'] }),
  await caseFor('limit, monthly', { limit: 1e12, limitReset: 'monthly' }),
  await caseFor('limit, weekly', { limit: 1e12, limitReset: 'weekly' }),
  await caseFor('account spend cap', {}, 1e12),
  await caseFor('all of them', { models: ['mock/*', 'claude-*'], endpoints: ['chat', 'images'], limit: 1e12, limitReset: 'monthly' }, 1e12),
];

const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (const c of cases) for (let i = 0; i < 2_000; i++) await c.op();
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await c.op();
    const used = process.cpuUsage(t0);
    results.get(c.name)!.push((used.user + used.system) / N);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results.get(cases[0].name)!);
console.log(`Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, ${N} requests × ${ROUNDS} rounds, ${new Date().toISOString()}`);
console.table(cases.map((c) => ({ case: c.name, 'cpu µs/req (median)': median(results.get(c.name)!).toFixed(2), 'vs baseline': (median(results.get(c.name)!) / base).toFixed(2) })));

await guards.close();
await registry.close();
await store.close();
fs.rmSync(dataDir, { recursive: true, force: true });
