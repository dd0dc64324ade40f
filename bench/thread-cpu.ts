/**
 * Where a target's CPU goes by thread: the main (JS) thread, V8's GC helpers, libuv's pool.
 * Drives one case like profile-gateway.ts (no profiler) and reads /proc/<pid>/task/<tid>/stat
 * before and after the measured phase.
 *
 *   node --import tsx bench/thread-cpu.ts [--case chat] [--concurrency 50] [--seconds 6] [--burst] [--target gateway|proxy]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, stopChild } from './processes.ts';
import { defaultProvider, startGateway, startProxy, startUpstream, type StartedGateway, type StartedTarget } from './targets.ts';

type Ticks = Map<string, number>;

function threadTicks(pid: number): Ticks {
  const out: Ticks = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const key = Number(tid) === pid ? 'main' : name;
      out.set(key, (out.get(key) ?? 0) + ticks);
    } catch {
      // the thread ended
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      case: { type: 'string', default: 'chat' },
      concurrency: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '6' },
      burst: { type: 'boolean' },
      target: { type: 'string', default: 'gateway' },
    },
  });
  const bench = CASES[values.case!];
  if (!bench) throw new Error(`unknown case ${values.case}`);
  process.on('exit', killAllChildren);
  const upstream = await startUpstream(0, values.burst === true);
  let target: StartedTarget | undefined;
  let gateway: StartedGateway | undefined;
  const load = await LoadGenerator.start();
  try {
    target = values.target === 'proxy' ? await startProxy(upstream.url) : (gateway = await startGateway({ provider: defaultProvider(), upstreamUrl: upstream.url }));
    const request = gateway ? bench.gateway(gateway.key, gateway.model) : bench.floor;
    let before: Ticks = new Map();
    const result = await load.run(
      { origin: new URL(target.url).origin, ...request, concurrency: Number(values.concurrency), warmupMs: 2000, warmupRequests: 5000, durationMs: Number(values.seconds) * 1000 },
      () => {
        before = threadTicks(target!.child.pid!);
      },
    );
    const after = threadTicks(target.child.pid!);
    const good = result.requests - result.errors;
    const rows = [...after].map(([name, t]) => ({ thread: name, 'µs/req': Number((((t - (before.get(name) ?? 0)) * 10_000) / good).toFixed(1)) }));
    rows.sort((a, b) => b['µs/req'] - a['µs/req']);
    const total = rows.reduce((s, r) => s + r['µs/req'], 0);
    console.log(`${values.target} ${bench.name}${values.burst ? ' burst' : ''} c=${values.concurrency}: ${good} requests, ${result.rps.toFixed(0)} req/s, ${total.toFixed(1)} µs/req`);
    console.table(rows.filter((r) => r['µs/req'] > 0));
  } finally {
    await load.stop().catch(() => undefined);
    if (target) await stopChild(target.child);
    gateway?.cleanup();
    await stopChild(upstream.child);
  }
}

main().catch((error: Error) => {
  console.error(error);
  killAllChildren();
  process.exitCode = 1;
});
