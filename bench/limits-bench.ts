/**
 * µs per rate-limit check for the memory and Redis stores.
 * Run by hand: `node --import tsx bench/limits-bench.ts` (REDIS_URL, default redis://127.0.0.1:6379).
 * "wall" is elapsed time per call; "cpu" is this process's CPU per call (what the gateway pays).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from '../src/limits/index.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `gw:rl:bench:${randomBytes(4).toString('hex')}:`;

interface Row {
  case: string;
  calls: number;
  'wall µs/call': string;
  'cpu µs/call': string;
}

const rows: Row[] = [];

/** Runs `op(i)` n times with `inFlight` calls outstanding at once and records the cost per call. */
async function measure(label: string, n: number, inFlight: number, op: (i: number) => unknown): Promise<void> {
  for (let i = 0; i < Math.min(n, 2_000); i++) await op(-1 - i); // warm up JIT, scripts, connection
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < n) await op(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  rows.push({
    case: label,
    calls: n,
    'wall µs/call': ((wall * 1_000) / n).toFixed(2),
    'cpu µs/call': ((cpu.user + cpu.system) / n).toFixed(2),
  });
}

async function benchStore(name: string, store: RateLimitStore, n: number): Promise<void> {
  await measure(`${name} hit, one hot key, admitted`, n, 1, () => store.hit('hot', 1e9, 60_000));
  await measure(`${name} hit, one key, throttled`, n, 1, () => store.hit('full', 10, 60_000));
  await measure(`${name} hit, 10k keys, admitted`, n, 1, (i) => store.hit(`ip:${i % 10_000}`, 1e9, 60_000));
  await measure(`${name} acquire + release`, n, 1, async () => (await store.acquire('slots', 1e6, 60_000))?.release());
  if (name === 'redis') {
    await measure(`${name} hit, 64 in flight`, n * 4, 64, (i) => store.hit(`c:${i % 1_000}`, 1e9, 60_000));
  }
}

const memory = new MemoryRateLimitStore();
await benchStore('memory', memory, 500_000);
await memory.close();

const redis = new RedisRateLimitStore({ url: REDIS_URL, prefix: PREFIX, log: () => {} });
if (await redis.ready(3_000)) {
  await benchStore('redis', redis, 20_000);
} else {
  console.error(`Redis not reachable at ${REDIS_URL}; skipping the Redis store.`);
}
await redis.close();

console.log(`Node ${process.version}, ${new Date().toISOString()}`);
console.table(rows);

// Leave nothing behind on a shared Redis.
const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
admin.on('error', () => {});
try {
  await admin.connect();
  const keys = await admin.keys(`${PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
} catch {
  // Redis was down; nothing was written.
}
admin.disconnect();
