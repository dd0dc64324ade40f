/**
 * How long does a store write hold the event loop, with the store filled to its limits?
 * Run by hand: `node --expose-gc --import tsx bench/store-bench.ts [--media-accounts 12] [--accounts 10000]`
 * (on Node ≥ 23.9 the CPU probe reads the main thread's clock; older Nodes read the process's).
 *
 * 1. In process: fills a data dir (db.json with accounts/keys/sessions, media.jsonl with
 *    accounts at their Media Library byte budget), then times each kind of write with
 *    perf_hooks.monitorEventLoopDelay (the longest block per write), next to the baseline
 *    of the same run: the old design's whole-file lowdb write of the same records.
 * 2. The real server (bin/gateway serve) on that data dir: GET /health latency, p50/p99/max,
 *    idle and while clients write the largest records the API accepts as fast as they can.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { MEDIA_LIMITS } from '../src/media/media-limits.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { hashPassword } from '../src/util/secrets.ts';
import { fillDataDir, mediaRecordOfSize } from '../test/helpers/fill-data-dir.ts';

const { values: args } = parseArgs({
  options: {
    accounts: { type: 'string', default: '10000' },
    'keys-per-account': { type: 'string', default: '2' },
    'sessions-per-account': { type: 'string', default: '1' },
    'media-accounts': { type: 'string', default: '12' },
    'media-per-account': { type: 'string', default: '1000' },
    writes: { type: 'string', default: '200' },
    'health-seconds': { type: 'string', default: '10' },
    writers: { type: 'string', default: '4' },
    'skip-server': { type: 'boolean', default: false },
    'skip-in-process': { type: 'boolean', default: false },
  },
});
const num = (name: keyof typeof args) => Number(args[name]);
const MB = 1024 * 1024;
const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * CPU time the main thread has run, in ms. Linux: /proc/thread-self/schedstat (the scheduler's
 * own nanosecond count, so it excludes time spent waiting for a CPU). Else Node ≥ 23.9's
 * threadCpuUsage (tick-based on many kernels: ~4 ms steps), else the whole process's CPU time.
 */
const { cpuNow, CPU_CLOCK } = ((): { cpuNow: () => number; CPU_CLOCK: string } => {
  try {
    const fd = fs.openSync('/proc/thread-self/schedstat', 'r');
    const buffer = Buffer.alloc(128);
    const read = () => {
      const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
      return Number(buffer.toString('latin1', 0, n).split(' ')[0]) / 1e6;
    };
    if (Number.isFinite(read())) return { cpuNow: read, CPU_CLOCK: 'main thread, /proc/thread-self/schedstat (ns)' };
  } catch {
    // not Linux
  }
  const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (typeof threadCpuUsage === 'function') {
    return {
      cpuNow: () => {
        const u = threadCpuUsage.call(process);
        return (u.user + u.system) / 1000;
      },
      CPU_CLOCK: 'main thread, threadCpuUsage',
    };
  }
  return {
    cpuNow: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    },
    CPU_CLOCK: 'whole process, cpuUsage',
  };
})();

interface Blocking<T> {
  /** Longest event-loop delay seen by perf_hooks.monitorEventLoopDelay (wall clock, 1 ms resolution). */
  maxBlockMs: number;
  /** Longest CPU time spent between two turns of the loop: the block itself, without time the OS gave other processes. */
  maxCpuBlockMs: number;
  ms: number;
  result: T;
}

/**
 * Runs `op` and measures how long it held the event loop. Two views: monitorEventLoopDelay's
 * max (wall clock: on a busy machine it includes time the process was not scheduled) and a
 * setImmediate probe that reads the CPU clock at every turn of the loop (the longest CPU
 * stretch between two turns is the longest block, whatever else the machine runs).
 */
async function blocking<T>(op: () => Promise<T>): Promise<Blocking<T>> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let lastCpu = cpuNow();
  let maxCpu = 0;
  let probing = true;
  const tick = () => {
    const cpu = cpuNow();
    if (cpu - lastCpu > maxCpu) maxCpu = cpu - lastCpu;
    lastCpu = cpu;
    if (probing) setImmediate(tick);
  };
  // Both probes take a first sample before the work starts (a block at the very start counts).
  await new Promise((r) => setTimeout(r, 3));
  lastCpu = cpuNow();
  maxCpu = 0;
  setImmediate(tick);
  const start = performance.now();
  const result = await op();
  const ms = performance.now() - start;
  await new Promise((r) => setTimeout(r, 3));
  probing = false;
  histogram.disable();
  return { maxBlockMs: histogram.max / 1e6, maxCpuBlockMs: maxCpu, ms, result };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const rows: Array<Record<string, string>> = [];
const row = (write: string, stats: Record<string, string>) => {
  rows.push({ write, ...stats });
  console.log(write.padEnd(58), Object.entries(stats).map(([k, v]) => `${k} ${v}`).join('  '));
};

const passwordHash = await hashPassword('bench password');
/** A data dir filled to the limits the options name (accounts can log in with 'bench password'). */
const fill = (dataDir: string) =>
  fillDataDir(dataDir, {
    accounts: num('accounts'),
    keysPerAccount: num('keys-per-account'),
    sessionsPerAccount: num('sessions-per-account'),
    mediaAccounts: num('media-accounts'),
    mediaPerAccount: num('media-per-account'),
    passwordHash,
  });

async function inProcess(dataDir: string): Promise<void> {
  const filled = fill(dataDir);
  console.log(`CPU clock of the probe: ${CPU_CLOCK} (Node ${process.version}); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`filled: db.json ${(filled.dbBytes / MB).toFixed(1)} MB (${num('accounts')} accounts, ${num('accounts') * num('keys-per-account')} keys, ${num('accounts') * num('sessions-per-account')} sessions); media.jsonl ${(filled.mediaBytes / MB).toFixed(1)} MB (${num('media-accounts')} accounts × ${num('media-per-account')} records at the 8 MiB budget)\n`);

  // Baseline: the old design, one lowdb file with every collection, written whole.
  const oldFile = path.join(os.tmpdir(), `store-bench-old-${process.pid}.json`);
  {
    const db = JSON.parse(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')) as Record<string, unknown>;
    db.media = fs.readFileSync(path.join(dataDir, 'media.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { put: unknown }).put);
    const low = new Low(new JSONFile<Record<string, unknown>>(oldFile), {});
    low.data = db;
    const once = await blocking(() => low.write());
    row('BASELINE old design: whole db.json (lowdb write)', { 'max block': fmt(once.maxBlockMs), 'cpu block': fmt(once.maxCpuBlockMs), took: fmt(once.ms), size: `${(fs.statSync(oldFile).size / MB).toFixed(0)} MB` });
    fs.rmSync(oldFile, { force: true });
  }
  // The baseline's copy of everything is garbage now: collect it before measuring (node --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();

  const opened = await blocking(() => FileStore.open(dataDir, { flushDelayMs: 10 }));
  const store = opened.result;
  row('open the data dir (start-up, before listening)', { 'max block': fmt(opened.maxBlockMs), 'cpu block': fmt(opened.maxCpuBlockMs), took: fmt(opened.ms) });

  const accountId = filled.accounts[0].id;
  const createdAt = Math.floor(Date.now() / 1000);
  const writes = num('writes');
  const perWrite = async (label: string, op: (i: number) => Promise<unknown>, count = writes) => {
    const blocks: number[] = [];
    const cpuBlocks: number[] = [];
    let total = 0;
    for (let i = 0; i < count; i++) {
      const r = await blocking(() => op(i));
      blocks.push(r.maxBlockMs);
      cpuBlocks.push(r.maxCpuBlockMs);
      total += r.ms;
    }
    row(label, {
      'max block': fmt(Math.max(...blocks)),
      'p50 block': fmt(percentile(blocks, 50)),
      'cpu block max': fmt(Math.max(...cpuBlocks)),
      'cpu p99': fmt(percentile(cpuBlocks, 99)),
      'mean took': fmt(total / count),
    });
  };
  const ids: string[] = [];
  await perWrite(`media create, ${MEDIA_LIMITS.recordBytes / 1024} KiB record (× ${writes})`, async () => {
    const record = mediaRecordOfSize(accountId, MEDIA_LIMITS.recordBytes, createdAt);
    record.result_urls = Array.from({ length: MEDIA_LIMITS.resultUrls }, (_, i) => `https://cdn.example.test/${i}/${'u'.repeat(MEDIA_LIMITS.urlChars - 40)}`);
    ids.push((await store.media.create(record)).id);
  });
  await perWrite(`media update (PATCH) of a ${MEDIA_LIMITS.recordBytes / 1024} KiB record (× ${writes})`, (i) => store.media.update(ids[i], { status: 'processing', error: `try ${i}` }));
  await perWrite(`media delete (× ${writes})`, (i) => store.media.delete(ids[i]));
  await perWrite(
    'account balance change + whole db.json write (× 50)',
    async (i) => {
      await store.accounts.adjustCredits(filled.accounts[i % filled.accounts.length].id, -0.5);
      await store.db.flush();
    },
    50,
  );
  const plain = await blocking(async () => JSON.stringify(store.db.data));
  row('  (reference: JSON.stringify of the same db.json at once)', { 'max block': fmt(plain.maxBlockMs), 'cpu block': fmt(plain.maxCpuBlockMs) });

  for (const size of [1, 25, 100]) {
    const text = JSON.stringify({ model: 'mock/echo', input: 'x'.repeat(size * MB) });
    // As the route has it: a body that was parsed or sent upstream is a flat string already
    // (V8 builds a large JSON.stringify result as a rope; the first reader flattens it once).
    text.slice(0, 1);
    const saved = await blocking(() => store.responses.save({ id: `resp_bench${size}`, accountId, createdAt: Date.now(), request: text, response: '{"id":"x","object":"response","output":[]}' }));
    row(`stored response save, ${size} MB request`, { 'max block': fmt(saved.maxBlockMs), 'cpu block': fmt(saved.maxCpuBlockMs), took: fmt(saved.ms) });
  }

  const listed = await blocking(() => store.media.list({ offset: 0, limit: 100 }));
  row(`media list, every account, page of 100 (of ${listed.result.total})`, { 'max block': fmt(listed.maxBlockMs), 'cpu block': fmt(listed.maxCpuBlockMs), took: fmt(listed.ms) });
  const mediaFile = path.join(dataDir, 'media.jsonl');
  const sizeMb = () => (fs.statSync(mediaFile).size / MB).toFixed(1);
  const compactedFull = await blocking(() => store.media.compact());
  row(`media compaction, every record live (→ ${sizeMb()} MB)`, { 'max block': fmt(compactedFull.maxBlockMs), 'cpu block': fmt(compactedFull.maxCpuBlockMs), took: fmt(compactedFull.ms) });
  const purge = await blocking(() => store.media.purgeCreatedBefore(createdAt));
  row(`media purge of ${purge.result} expired records (30-day expiry)`, { 'max block': fmt(purge.maxBlockMs), 'cpu block': fmt(purge.maxCpuBlockMs), took: fmt(purge.ms) });
  const compacted = await blocking(() => store.media.compact());
  row(`media compaction after the purge (→ ${sizeMb()} MB)`, { 'max block': fmt(compacted.maxBlockMs), 'cpu block': fmt(compacted.maxCpuBlockMs), took: fmt(compacted.ms) });
  await store.close();
}

/** GET /health latencies (ms) for `seconds`, one request after another. */
async function probeHealth(url: string, seconds: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    const res = await fetch(`${url}/health`);
    await res.arrayBuffer();
    out.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 2));
  }
  return out;
}

async function serverPhase(dataDir: string): Promise<void> {
  fill(dataDir);
  const configFile = path.join(path.dirname(dataDir), 'gateway.config.json');
  fs.writeFileSync(configFile, JSON.stringify({ providers: { mock: { plugin: 'mock' } }, logging: { level: 'warn' } }));
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/gateway'), '--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
    });
    const tokens: string[] = [];
    for (let i = 0; i < Math.min(num('writers'), 5, num('media-accounts')); i++) {
      const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `fill${i}@example.test`, password: 'bench password' }) });
      tokens.push(((await res.json()) as { token: string }).token);
    }
    const idle = await probeHealth(url, 3);
    // The writers run in their own process, so their work does not delay this one's probe.
    const seconds = num('health-seconds');
    const writerProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/media-writer.ts'), url, String(seconds + 1), ...tokens], { stdio: ['ignore', 'pipe', 'inherit'] });
    let report = '';
    writerProcess.stdout!.on('data', (d: Buffer) => (report += d.toString()));
    const writerDone = new Promise((r) => writerProcess.once('exit', r));
    await new Promise((r) => setTimeout(r, 1000)); // writers logged in and listed their records
    const loaded = await probeHealth(url, seconds);
    await writerDone;
    const written = JSON.parse(report) as { rounds: number; bytes: number; full: number; failures: Record<string, number> };
    const show = (label: string, xs: number[]) => row(label, { p50: fmt(percentile(xs, 50)), p99: fmt(percentile(xs, 99)), max: fmt(Math.max(...xs)), samples: String(xs.length) });
    show('GET /health, server idle (baseline)', idle);
    show(`GET /health while ${tokens.length} accounts write max-size records`, loaded);
    console.log(`  written: ${written.rounds} rounds (delete + create + PATCH of a ~110 KiB record), ${(written.bytes / MB).toFixed(0)} MB in ${seconds + 1} s; library full (429, oldest deleted): ${written.full}; other non-2xx: ${JSON.stringify(written.failures)}; p99 ratio to idle: ${(percentile(loaded, 99) / percentile(idle, 99)).toFixed(1)}×`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

// The server phase runs bin/gateway, which runs the compiled CLI.
if (!args['skip-server']) await new Promise((resolve) => spawn(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' }).once('exit', resolve));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-'));
try {
  if (!args['skip-in-process']) await inProcess(path.join(dir, 'data'));
  if (!args['skip-server']) await serverPhase(path.join(dir, 'served'));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
