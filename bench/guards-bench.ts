/**
 * µs per request of the account guards on the request path: `admit` (rate limit, concurrency
 * slot, tier, quota, credit reservation) plus `settle` (charge, ledger line, usage aggregates).
 * Run by hand: `node --import tsx bench/guards-bench.ts` (REDIS_URL, default redis://127.0.0.1:6379).
 * "wall" is elapsed time per request; "cpu" is this process's CPU per request (what the gateway pays).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

import type { AccountGuards } from '../src/accounts/index.ts';
import { openAccountGuards } from '../src/app/open-credits.ts';
import { createAccount, createKey } from '../src/admin/accounts.ts';
import { parseConfig } from '../src/config/index.ts';
import type { Settlement } from '../src/pipeline/types.ts';
import { ProviderRegistry } from '../src/providers/registry.ts';
import type { AdmissionRequest } from '../src/accounts/types.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { systemClock } from '../src/util/clock.ts';
import { createLogger } from '../src/util/logger.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `gw:rl:bench:${randomBytes(4).toString('hex')}:`;
const ROOT = path.resolve(import.meta.dirname, '..');

interface Row {
  case: string;
  requests: number;
  'wall µs/req': string;
  'cpu µs/req': string;
}
const rows: Row[] = [];

async function measure(label: string, n: number, inFlight: number, op: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(n, 2_000); i++) await op();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < n) await op();
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  rows.push({ case: label, requests: n, 'wall µs/req': ((wall * 1_000) / n).toFixed(2), 'cpu µs/req': ((cpu.user + cpu.system) / n).toFixed(2) });
}

/** Guards over a fresh data dir with one priced account whose limits never throttle. */
async function setup(limits: Record<string, unknown>, billing: Record<string, unknown> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-guards-bench-'));
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } }, limits, billing });
  const log = createLogger('silent');
  const store = await FileStore.open(dataDir);
  const registry = await ProviderRegistry.create(config, { configDir: ROOT, log });
  const account = await createAccount(store, systemClock, { email: 'bench@example.com', tier: 'pro', credits: 1e9 });
  const { record } = await createKey(store, systemClock, { account: account.email, rpm: 1e9 });
  const guards = await openAccountGuards({ config, store, registry, clock: systemClock, log, dataDir });
  const model = registry.get('mock/echo')!;
  const request: AdmissionRequest = {
    auth: { account, key: record },
    method: 'POST',
    route: '/v1/chat/completions',
    clientAddress: '127.0.0.1',
    model: 'mock/echo',
    estimatedInputTokens: 500,
    maxOutputTokens: 256,
  };
  const settlement: Settlement = { model, usage: { inputTokens: 500, outputTokens: 200 }, estimated: false, aborted: false };
  const once = async () => {
    const admission = await guards.admit(request);
    await admission.settle(settlement);
  };
  const close = async (g: AccountGuards) => {
    await g.close();
    await registry.close();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { guards, once, close, request, registry, store };
}

const CONCURRENCY = { tiers: { pro: 1_000_000 } };

async function benchStore(name: string, store: 'memory' | { redis: string; prefix: string }, n: number): Promise<void> {
  const full = await setup({ store, concurrency: CONCURRENCY });
  await measure(`${name}: admit + settle (limit, slot, quota, credits, ledger)`, n, 1, full.once);
  if (name === 'redis') await measure(`${name}: admit + settle, 64 in flight`, n * 2, 64, full.once);
  await full.close(full.guards);
  const readOnly = await setup({ store, concurrency: CONCURRENCY });
  const usageRequest = { ...readOnly.request, method: 'GET', route: '/v1/credits', model: undefined };
  await measure(`${name}: admit + settle, non-generation route (limit only)`, n, 1, async () => (await readOnly.guards.admit(usageRequest)).settle(null));
  await readOnly.close(readOnly.guards);
}

await benchStore('memory', 'memory', 100_000);
const nolimits = await setup({ default: null, tiers: { free: null, basic: null, fellow: null, pro: null }, endpoints: { 'POST /v1/chat/completions': null }, concurrency: { default: null, tiers: { pro: null } } });
await measure('no limits: admit + settle (tier, quota, credits, ledger only)', 100_000, 1, nolimits.once);
await nolimits.close(nolimits.guards);

const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
probe.on('error', () => {});
let redisUp = false;
try {
  await probe.connect();
  redisUp = (await probe.ping()) === 'PONG';
} catch {
  redisUp = false;
}
if (redisUp) await benchStore('redis', { redis: REDIS_URL, prefix: PREFIX }, 10_000);
else console.error(`Redis not reachable at ${REDIS_URL}; skipping the Redis store.`);

console.log(`Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, ${new Date().toISOString()}`);
console.table(rows);

if (redisUp) {
  const keys = await probe.keys(`${PREFIX}*`);
  if (keys.length > 0) await probe.del(...keys);
}
probe.disconnect();
