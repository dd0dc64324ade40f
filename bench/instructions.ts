/**
 * Instructions per request, gateway against the floor: a measure that does not move with the
 * machine's load (run by hand; never a timed test). Each target runs under valgrind's callgrind
 * with instrumentation off while it starts and is primed (so the JIT settles), then on for the
 * measured batch only (`callgrind_control -i on`, `-z`, the batch, `-d`, `-i off`); the dump's
 * total over the requests served is the figure. User-space instructions of every thread of the
 * target (JavaScript, V8, libuv, llhttp, GC helpers); the kernel's share (loopback sockets,
 * the same system calls per request for both targets) is not counted.
 *
 *   node --import tsx bench/instructions.ts [--cases chat,chat-stream,messages-stream] [--target both|gateway|proxy]
 *        [--requests 2000] [--prime 10000] [--concurrency 50] [--batches 3] [--trickle] [--gateway-dir <checkout>] [--keep <dir>] [--top N]
 *        [--config '<json>']  (top-level config keys set on the gateway's, e.g. '{"metrics":{"enabled":false}}': what one subsystem costs)
 *
 * The upstream writes every event of a stream at once (burst) unless `--trickle`. Everything runs
 * 50-100× slower under valgrind: a target takes ~1 minute to start and a few minutes per case.
 * `--keep <dir>` keeps the dumps for `callgrind_annotate <dump> | head -60` (C++ by name; the JIT's
 * code is anonymous: pair it with bench/profile-gateway.ts for JavaScript names).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, stopChild } from './processes.ts';
import { defaultProvider, REPO, startGateway, startProxy, startUpstream, type StartedGateway, type StartedTarget } from './targets.ts';

interface Row {
  target: string;
  case: string;
  batch: number;
  requests: number;
  instructions: number;
  perRequest: number;
  /** Of which TurboFan's background compile jobs (the JIT still settling): left out of `steady`. */
  compilePerRequest: number;
  steady: number;
  /** Of `steady`, V8's garbage collector (by function name): lumpy, an old-generation collection lands in one batch. */
  gcPerRequest: number;
}

/** V8's garbage collector's own functions (scavenges, marking, sweeping, evacuation, root visits). */
const GC_FUNCTION = /Scaveng|Marking|MarkCompact|Sweep|Evacuat|IteratePointers|RememberedSet|SlotSet|Heap::|heap::base::|GCTracer|Pretenuring|IterateObjectCache|RootVisitor|ObjectVisitor|MemoryChunk|MemoryAllocator|ActiveSystemPages|LocalAllocationBuffer|SizeFromMap|__popcount|RelocIterator|LiveObject|MarkBit/;

/** Per function of a dump (`callgrind_annotate`), exclusive or inclusive instruction counts, recursion folded. */
function annotate(file: string, inclusive: boolean): Map<string, number> {
  const text = execFileSync('callgrind_annotate', ['--threshold=100', ...(inclusive ? ['--inclusive=yes'] : []), file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = line.match(/^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/);
    if (!m || m[2].startsWith('PROGRAM TOTALS')) continue;
    const name = m[2].replace(/'\d+/g, '');
    const n = Number(m[1].replace(/,/g, ''));
    out.set(name, inclusive ? Math.max(out.get(name) ?? 0, n) : (out.get(name) ?? 0) + n);
  }
  return out;
}

/** JIT code ranges from node's `--perf-basic-prof-only-functions` map (/tmp/perf-<pid>.map). */
function perfMap(pid: number): { start: number; end: number; name: string }[] {
  try {
    return readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [start, size, ...name] = line.split(' ');
        const s = Number.parseInt(start, 16);
        return { start: s, end: s + Number.parseInt(size, 16), name: name.join(' ') };
      });
  } catch {
    return [];
  }
}

/** The top functions of a dump by exclusive count per request, JIT addresses named from the perf map. */
function topFunctions(file: string, pid: number, requests: number, top: number): string[] {
  const map = perfMap(pid);
  const named = new Map<string, number>();
  for (const [name, n] of annotate(file, false)) {
    const address = name.match(/^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]$/);
    let key = name.replace(/ \[\/usr\/bin\/node\]$/, '').replace(/^\?\?\?:/, '');
    if (address) {
      const a = Number.parseInt(address[1], 16);
      key = `JIT ${map.findLast((r) => r.start <= a && a < r.end)?.name ?? `0x${address[1]}`}`;
    }
    named.set(key, (named.get(key) ?? 0) + n);
  }
  return [...named]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => `${Math.round(n / requests).toLocaleString('en').padStart(9)}  ${name.slice(0, 160)}`);
}

function callgrindControl(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore', timeout: 120_000 });
}

/** The newest dump file in `dir` and its total instruction count (`summary:` / `totals:` line). */
function readDump(dir: string, seen: Set<string>): { file: string; total: number } {
  const fresh = readdirSync(dir)
    .filter((f) => !seen.has(f))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).size > 0)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const file = fresh[0];
  if (!file) throw new Error(`no callgrind dump appeared in ${dir}`);
  seen.add(path.basename(file));
  const text = readFileSync(file, 'utf8');
  const total = text.match(/^(?:summary|totals):\s+(\d+)/m);
  if (!total) throw new Error(`${file} has no summary line`);
  return { file, total: Number(total[1]) };
}

/** The floor's figure for a case is the one of the first case sending the floor the same request. */
const floorCase = (name: string): string => Object.values(CASES).find((c) => c.floor === CASES[name].floor)!.name;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: 'chat,chat-stream,messages-stream' },
      target: { type: 'string', default: 'both' },
      requests: { type: 'string', default: '2000' },
      prime: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '50' },
      batches: { type: 'string', default: '3' },
      trickle: { type: 'boolean' },
      'gateway-dir': { type: 'string' },
      keep: { type: 'string' },
      top: { type: 'string', default: '0' },
      config: { type: 'string' },
    },
  });
  const cases = values.cases!.split(',').map((name) => {
    const c = CASES[name];
    if (!c) throw new Error(`unknown case ${name}`);
    return c;
  });
  const targets = values.target === 'both' ? ['proxy', 'gateway'] : [values.target!];
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const gatewayDir = values['gateway-dir'] ? path.resolve(values['gateway-dir']) : REPO;
  const outDir = values.keep ? path.resolve(values.keep) : mkdtempSync(path.join(tmpdir(), 'gateway-instructions-'));
  mkdirSync(outDir, { recursive: true });
  process.on('exit', killAllChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

  const upstream = await startUpstream(0, !values.trickle);
  const load = await LoadGenerator.start();
  const rows: Row[] = [];
  try {
    for (const name of targets) {
      const dir = path.join(outDir, name);
      mkdirSync(dir, { recursive: true });
      const seen = new Set(readdirSync(dir));
      const launcher = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${dir}/callgrind.%p`];
      const top = Number(values.top);
      // Slowed down ~50×, V8 would take the target for idle (its allocation rate is read per ms of wall
      // time): the memory reducer then starts full collections and bytecode unused for a few of them
      // is flushed, compiled again and optimized again, ten times the work of a request. Natively,
      // under load, neither happens.
      const nodeArgs = ['--no-memory-reducer', '--no-flush-bytecode', ...(top > 0 ? ['--perf-basic-prof-only-functions'] : [])];
      let target: StartedTarget | undefined;
      let gateway: StartedGateway | undefined;
      try {
        const t0 = Date.now();
        target =
          name === 'proxy'
            ? await startProxy(upstream.url, nodeArgs, { launcher, timeoutMs: 600_000 })
            : (gateway = await startGateway({ provider: defaultProvider(gatewayDir), upstreamUrl: upstream.url, gatewayDir, nodeArgs, launcher, timeoutMs: 600_000 }));
        console.error(`${name}: started under callgrind in ${((Date.now() - t0) / 1000).toFixed(0)} s (pid ${target.child.pid})`);
        // The floor's streams are the Chat stream: messages-stream shares chat-stream's figure there.
        const mine = name === 'proxy' ? [...new Set(cases.map((c) => floorCase(c.name)))].map((n) => CASES[n]) : cases;
        for (const bench of mine) {
          const request = gateway ? bench.gateway(gateway.key, gateway.model) : bench.floor;
          const origin = new URL(target.url).origin;
          for (let batch = 1; batch <= Number(values.batches); batch++) {
            const t1 = Date.now();
            const result = await load.run(
              { origin, ...request, concurrency, warmupMs: 0, warmupRequests: batch === 1 ? Number(values.prime) : 500, durationMs: 3_600_000, maxRequests: requests, reconnect: true },
              () => {
                callgrindControl(target!.child.pid, '-i', 'on');
                callgrindControl(target!.child.pid, '-z');
              },
            );
            callgrindControl(target.child.pid, '-d');
            callgrindControl(target.child.pid, '-i', 'off');
            const { file, total } = readDump(dir, seen);
            const good = result.requests - result.errors;
            if (result.errors > 0) console.error(`${name} ${bench.name}: ${result.errors} errors (${result.firstError})`);
            const compile = [...annotate(file, true)].filter(([fn]) => fn.includes('OptimizingCompileDispatcher::CompileTask::RunInternal')).reduce((m, [, n]) => Math.max(m, n), 0);
            const gc = [...annotate(file, false)].filter(([fn]) => GC_FUNCTION.test(fn) && !fn.includes('compiler::')).reduce((sum, [, n]) => sum + n, 0);
            const row: Row = {
              target: name,
              case: bench.name,
              batch,
              requests: good,
              instructions: total,
              perRequest: Math.round(total / good),
              compilePerRequest: Math.round(compile / good),
              steady: Math.round((total - compile) / good),
              gcPerRequest: Math.round(gc / good),
            };
            rows.push(row);
            console.error(
              `${name} ${bench.name} batch ${batch}: ${good} requests, ${row.perRequest.toLocaleString('en')} instructions each, ` +
                `${row.compilePerRequest.toLocaleString('en')} of them compiling, ${row.gcPerRequest.toLocaleString('en')} collecting garbage (${((Date.now() - t1) / 1000).toFixed(0)} s) ${file}`,
            );
            if (top > 0 && batch === Number(values.batches)) console.error(topFunctions(file, target.child.pid, good, top).join('\n'));
          }
        }
      } finally {
        if (target) await stopChild(target.child, 'SIGTERM', 60_000);
        gateway?.cleanup();
      }
    }
  } finally {
    await load.stop().catch(() => undefined);
    await stopChild(upstream.child);
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  // A batch where TurboFan still compiled more than 10 % of the total is unsettled (deoptimised code
  // being optimised again, its callers running slower meanwhile): left out of the summary.
  const settled = (r: Row) => r.compilePerRequest <= 0.1 * r.perRequest;
  const per = (target: string, name: string, withoutGc = false) =>
    rows.filter((r) => r.target === target && r.case === name && settled(r)).map((r) => (withoutGc ? r.steady - r.gcPerRequest : r.steady));
  const unsettled = rows.filter((r) => !settled(r));
  console.log(
    `\ninstructions per request (TurboFan's compile jobs left out; each settled batch, then the medians' difference and ratio), ` +
      `${values.trickle ? 'trickle' : 'burst'} upstream, ${concurrency} connections, ${requests} requests a batch` +
      (unsettled.length ? `; left out as unsettled: ${unsettled.map((r) => `${r.target} ${r.case} batch ${r.batch}`).join(', ')}` : ''),
  );
  const fmt = (xs: number[]) => xs.map((n) => n.toLocaleString('en')).join(' / ');
  const table = cases.map((c) => {
    const g = per('gateway', c.name);
    const f = per('proxy', floorCase(c.name));
    const gn = per('gateway', c.name, true);
    const fn = per('proxy', floorCase(c.name), true);
    return {
      case: c.name,
      gateway: fmt(g),
      floor: fmt(f),
      'gateway − floor': g.length && f.length ? (median(g) - median(f)).toLocaleString('en') : '',
      'gateway ÷ floor': g.length && f.length ? `${(median(g) / median(f)).toFixed(2)}×` : '',
      'without GC: gateway': fmt(gn),
      'without GC: floor': fmt(fn),
      'without GC: ÷': gn.length && fn.length ? `${(median(gn) / median(fn)).toFixed(2)}×` : '',
    };
  });
  console.table(table);
  console.log(`dumps: ${outDir}`);
  if (!values.keep) rmSync(outDir, { recursive: true, force: true });
}

main().catch((error: Error) => {
  console.error(error);
  killAllChildren();
  process.exitCode = 1;
});
