/**
 * The PostgreSQL store against the file store, in the same run (issue 10): CPU per request of
 * the gateway process and p50 latency, on priced requests through `mock` with an API key and
 * an account with credit, so admission and settlement touch the store. The two gateways are
 * measured back to back for each concurrency and round, alternating which goes first; the
 * PostgreSQL server's own CPU for the gateway's connections (its backends, found through
 * pg_stat_activity) is reported beside it.
 *
 *   node scripts/build.mjs --if-stale
 *   node --import tsx bench/store-backends-bench.ts [--rounds 3] [--concurrency 1,16] [--duration 4000] [--json] [--profile]
 *
 * `--async-commit` sets `synchronous_commit = off` on the bench database (an experiment: how
 * much of the cost is the WAL flush of each commit). `--socket /var/run/postgresql` connects the
 * gateway through PostgreSQL's Unix socket instead of TCP on 127.0.0.1. `--accounts 16` spreads
 * the requests over 16 accounts (worker i uses account i mod 16) instead of one. `--rate 4000`
 * paces every measured phase at that offered load instead of back to back: the added latency at
 * one load below saturation (a closed loop's p50 at 16 connections only follows its throughput,
 * which on one 2-core box also pays for PostgreSQL's own CPU).
 *
 * `--profile` runs both gateways under `node --cpu-prof` and prints where each spent its CPU
 * (self time by function and area, the whole run); the figures are then not for the report.
 *
 * Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres); it
 * creates a database gw_bench_<random> and drops it at the end. Targets: ≤ 1.3× the CPU and
 * ≤ +0.3 ms p50 of the file store.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { LoadGenerator } from './load-client.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { killAllChildren, readCpuMs, stopChild } from './processes.ts';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from './summarize-profile.ts';
import { REPO, startGateway, type StartedGateway } from './targets.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,16' },
    duration: { type: 'string', default: '4000' },
    warmup: { type: 'string', default: '1000' },
    prime: { type: 'string', default: '3000' },
    json: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'async-commit': { type: 'boolean', default: false },
    socket: { type: 'string' },
    accounts: { type: 'string', default: '1' },
    rate: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const CONCURRENCIES = values.concurrency.split(',').map(Number);
const DURATION_MS = Number(values.duration);
const WARMUP_MS = Number(values.warmup);
const PRIME = Number(values.prime);
const ACCOUNTS = Math.max(1, Number(values.accounts));
/** `--rate <req/s>`: every measured phase paced at this offered load (latency below saturation) instead of back to back. */
const RATE = values.rate ? Number(values.rate) : undefined;

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `gw_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
/** The gateway's URL: TCP like the admin URL, or the server's Unix socket directory with --socket. */
const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  if (values.socket) u.searchParams.set('host', values.socket);
  return u.toString();
})();

const log = (line: string) => process.stderr.write(`${line}\n`);
const run = promisify(execFile);

/** A priced model, so every request reserves credit at admission and is charged at settlement. */
const PROVIDERS = { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } };
const BODY = JSON.stringify({
  model: 'mock/echo',
  max_tokens: 32,
  messages: [
    { role: 'system', content: 'You are a helpful assistant. Answer in one short sentence.' },
    { role: 'user', content: 'Write one sentence about a quick brown fox.' },
  ],
});

type Name = 'file' | 'postgres';
interface Sample {
  target: Name;
  concurrency: number;
  round: number;
  result: LoadResult;
  cpuUsPerReq: number;
  dbCpuUsPerReq?: number;
  /** Transactions the database committed per request (pg_stat_database.xact_commit). */
  commitsPerReq?: number;
}

/** More accounts with credit and a key each, through the running gateway's admin procedures over HTTP (the CLI would start a process per call). */
async function moreAccountKeys(gw: StartedGateway, count: number): Promise<string[]> {
  const info = JSON.parse(readFileSync(path.join(gw.dataDir, 'server.json'), 'utf8')) as { url: string; adminUrl?: string; adminToken: string };
  const call = async (procedure: string, input: unknown) => {
    const res = await fetch(`${info.adminUrl ?? info.url}/admin/trpc/${procedure}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info.adminToken}` },
      body: JSON.stringify(input),
    });
    if (!res.ok) throw new Error(`${procedure}: HTTP ${res.status} ${await res.text()}`);
    return ((await res.json()) as { result: { data: Record<string, unknown> } }).result.data;
  };
  const keys: string[] = [];
  for (let i = 1; i <= count; i++) {
    const email = `bench${i}@example.com`;
    await call('accounts.create', { email, tier: 'enterprise', credits: 100_000_000 });
    keys.push(String((await call('keys.create', { account: email })).key));
  }
  return keys;
}

/** An account with plenty of credit and a key for it, made through the running gateway's admin procedures. */
async function accountKey(gw: StartedGateway): Promise<string> {
  const configFile = path.join(path.dirname(gw.dataDir), 'gateway.config.json');
  const cli = (args: string[]) => run(process.execPath, [path.join(REPO, 'bin/gateway'), '--config', configFile, '--data-dir', gw.dataDir, ...args], { cwd: REPO });
  await cli(['accounts', 'create', '--email', 'bench@example.com', '--tier', 'enterprise', '--credits', '100000000']);
  const { stdout } = await cli(['keys', 'create', '--account', 'bench@example.com', '--json']);
  return (JSON.parse(stdout) as { key: string }).key;
}

/** CPU ms of the PostgreSQL backends serving the bench database (the gateway's pool and listener). */
async function commits(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ n: string }>('select xact_commit as n from pg_stat_database where datname = $1', [DB_NAME]);
  return Number(rows[0]?.n ?? 0);
}

async function dbCpuMs(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [DB_NAME]);
  return rows.reduce((sum, r) => sum + (readCpuMs(r.pid) ?? 0), 0);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`create database ${DB_NAME}`);
// An experiment: commits that do not wait for the WAL flush (how much of the cost is fsync).
if (values['async-commit']) await admin.query(`alter database ${DB_NAME} set synchronous_commit = off`);
const gateways: Partial<Record<Name, StartedGateway & { apiKey: string; authorizations?: string[] }>> = {};
let load: LoadGenerator | undefined;
const cleanup = () => killAllChildren();
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});
try {
  const profDirs: Partial<Record<Name, string>> = {};
  for (const name of ['file', 'postgres'] as const) {
    if (values.profile) profDirs[name] = mkdtempSync(path.join(tmpdir(), `gateway-prof-${name}-`));
    const gw = await startGateway({
      provider: 'mock',
      upstreamUrl: '',
      nodeArgs: values.profile ? ['--cpu-prof', '--cpu-prof-dir', profDirs[name]!] : [],
      config: { providers: PROVIDERS, ...(name === 'postgres' ? { store: { postgres: dbUrl } } : {}) },
    });
    const apiKey = await accountKey(gw);
    const more = ACCOUNTS > 1 ? await moreAccountKeys(gw, ACCOUNTS - 1) : [];
    gateways[name] = { ...gw, apiKey, authorizations: ACCOUNTS > 1 ? [apiKey, ...more].map((k) => `Bearer ${k}`) : undefined };
    log(`${name}: ${gw.url} (pid ${gw.child.pid})`);
  }
  load = await LoadGenerator.start();
  const samples: Sample[] = [];
  const job = (gw: StartedGateway & { apiKey: string; authorizations?: string[] }, concurrency: number, extra: Partial<LoadJob> = {}): LoadJob => ({
    origin: new URL(gw.url).origin,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.apiKey}` },
    body: BODY,
    concurrency,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    expect: '"finish_reason"[\\s\\S]*\\}\\s*$',
    ...(gw.authorizations ? { authorizations: gw.authorizations } : {}),
    ...extra,
  });
  for (const name of ['file', 'postgres'] as const) {
    await load.run(job(gateways[name]!, Math.max(...CONCURRENCIES), { warmupMs: 0, warmupRequests: PRIME, durationMs: 1 }), () => undefined);
  }
  // What each gateway burns with no requests (timers, heartbeats, the LISTEN connection): at low
  // request rates it weighs on CPU per request, so it is reported beside it.
  const idleMsPerS: Partial<Record<Name, number>> = {};
  {
    const cpu0 = { file: readCpuMs(gateways.file!.child.pid) ?? 0, postgres: readCpuMs(gateways.postgres!.child.pid) ?? 0 };
    await new Promise((r) => setTimeout(r, 3000));
    for (const name of ['file', 'postgres'] as const) idleMsPerS[name] = ((readCpuMs(gateways[name]!.child.pid) ?? 0) - cpu0[name]) / 3;
    log(`idle CPU: file ${idleMsPerS.file!.toFixed(1)} ms/s, postgres ${idleMsPerS.postgres!.toFixed(1)} ms/s`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of CONCURRENCIES) {
      const order: Name[] = round % 2 === 0 ? ['file', 'postgres'] : ['postgres', 'file'];
      for (const name of order) {
        const gw = gateways[name]!;
        let cpu0 = 0;
        let db0 = 0;
        let tx0 = 0;
        const result = await load.run(job(gw, concurrency, RATE ? { ratePerSec: RATE } : {}), async () => {
          cpu0 = readCpuMs(gw.child.pid) ?? 0;
          if (name === 'postgres') [db0, tx0] = [await dbCpuMs(admin), await commits(admin)];
        });
        await new Promise((r) => setTimeout(r, 50)); // settlement writes after the last response belong to the window
        const cpu1 = readCpuMs(gw.child.pid) ?? 0;
        const good = result.requests - result.errors;
        const sample: Sample = { target: name, concurrency, round, result, cpuUsPerReq: ((cpu1 - cpu0) * 1000) / good };
        if (name === 'postgres') {
          sample.dbCpuUsPerReq = (((await dbCpuMs(admin)) - db0) * 1000) / good;
          // pg_stat_database lags by up to PGSTAT's flush interval; a rough count is enough here.
          await new Promise((r) => setTimeout(r, 1100));
          sample.commitsPerReq = ((await commits(admin)) - tx0) / good;
        }
        samples.push(sample);
        log(
          `  round ${round + 1} c=${concurrency} ${name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(3)} ms, CPU ${sample.cpuUsPerReq.toFixed(0)} µs/req` +
            (sample.dbCpuUsPerReq !== undefined ? ` (+ PostgreSQL ${sample.dbCpuUsPerReq.toFixed(0)}, ${sample.commitsPerReq?.toFixed(2)} commits/req)` : '') +
            (result.errors ? `, ${result.errors} errors (${result.firstError})` : ''),
        );
      }
    }
  }

  const rows = CONCURRENCIES.map((concurrency) => {
    const of = (name: Name) => samples.filter((s) => s.target === name && s.concurrency === concurrency);
    const pick = (name: Name) => ({
      rps: median(of(name).map((s) => s.result.rps)),
      p50: median(of(name).map((s) => s.result.p50)),
      p99: median(of(name).map((s) => s.result.p99)),
      cpu: median(of(name).map((s) => s.cpuUsPerReq)),
      dbCpu: name === 'postgres' ? median(of(name).map((s) => s.dbCpuUsPerReq ?? 0)) : undefined,
      errors: of(name).reduce((n, s) => n + s.result.errors, 0),
    });
    const file = pick('file');
    const postgres = pick('postgres');
    return { concurrency, file, postgres, cpuRatio: postgres.cpu / file.cpu, p50DeltaMs: postgres.p50 - file.p50 };
  });
  if (values.json) {
    process.stdout.write(JSON.stringify({ rounds: ROUNDS, durationMs: DURATION_MS, idleMsPerS, rows }, null, 2) + '\n');
  } else {
    const f = (n: number, d = 0) => n.toFixed(d);
    console.log(`\nPostgreSQL store vs file store, priced mock requests from ${ACCOUNTS} account(s), medians of ${ROUNDS} rounds (${DURATION_MS} ms each)${RATE ? `, paced at ${RATE} req/s offered (not back to back)` : ''}:\n`);
    console.log('| conc. | store | req/s | p50 ms | p99 ms | gateway CPU µs/req | PostgreSQL CPU µs/req | errors |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      for (const name of ['file', 'postgres'] as const) {
        const x = r[name];
        console.log(`| ${r.concurrency} | ${name} | ${f(x.rps)} | ${f(x.p50, 3)} | ${f(x.p99, 3)} | ${f(x.cpu)} | ${x.dbCpu === undefined ? '-' : f(x.dbCpu)} | ${x.errors} |`);
      }
      console.log(`| ${r.concurrency} | **postgres ÷ file** | | **${r.p50DeltaMs >= 0 ? '+' : ''}${f(r.p50DeltaMs, 3)} ms** | | **${f(r.cpuRatio, 2)}×** | | |`);
    }
    console.log(`\nidle CPU (no requests): file ${f(idleMsPerS.file!, 1)} ms/s, postgres ${f(idleMsPerS.postgres!, 1)} ms/s`);
    console.log('targets: gateway CPU ≤ 1.3× and p50 ≤ +0.3 ms');
  }
  if (values.profile) {
    for (const name of ['file', 'postgres'] as const) {
      await stopChild(gateways[name]!.child, 'SIGINT', 15_000);
      const dir = profDirs[name]!;
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) continue;
      const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
      const requests = samples.filter((x) => x.target === name).reduce((n, x) => n + x.result.requests, 0);
      console.log(`\n=== ${name} store: ${path.join(dir, file)} (whole run incl. warm-up)\n`);
      console.log(formatProfileSummary(summarizeProfile(profile), 25, requests));
    }
  }
} finally {
  await load?.stop().catch(() => undefined);
  for (const gw of Object.values(gateways)) {
    await stopChild(gw!.child).catch(() => undefined);
    gw!.cleanup();
  }
  cleanup();
  await admin.query(`drop database if exists ${DB_NAME} with (force)`).catch(() => undefined);
  await admin.end();
}
