/**
 * The measuring loop: for each case and concurrency, the targets back to back (so the
 * ratios compare runs made under the same machine load), the target's CPU counters read
 * around each measured phase.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CaseRequest } from './cases.ts';
import { JobFailed, type LoadGenerator } from './load-client.ts';
import type { LoadJob, LoadResult } from './load.ts';
import type { Options } from './options.ts';
import { readCpuMs, type Child } from './processes.ts';
import type { RunRecord, TargetName } from './report.ts';
import type { StartedGateway, StartedTarget } from './targets.ts';

export interface Targets {
  direct?: StartedTarget;
  proxy?: StartedTarget;
  gateway?: StartedGateway;
  /** A gateway from another checkout, measured beside this one (--baseline-dir). */
  baseline?: StartedGateway;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function jobFor(url: string, request: CaseRequest, concurrency: number, options: Options): LoadJob {
  return { origin: new URL(url).origin, ...request, concurrency, warmupMs: options.warmupMs, durationMs: options.durationMs };
}

/** Runs one job against one target and reads the target's CPU time around the measured phase. */
async function measure(load: LoadGenerator, child: Child, job: LoadJob): Promise<Pick<RunRecord, 'result' | 'cpuUsPerReq' | 'cpuPct'>> {
  let cpu0: number | undefined;
  const result = await load.run(job, () => {
    cpu0 = readCpuMs(child.pid);
  });
  await sleep(50); // after-response work (the usage ledger write) belongs to the window
  const cpu1 = readCpuMs(child.pid);
  const good = result.requests - result.errors;
  if (cpu0 === undefined || cpu1 === undefined || good === 0) return { result };
  return { result, cpuUsPerReq: ((cpu1 - cpu0) * 1000) / good, cpuPct: ((cpu1 - cpu0) / (result.elapsedMs + 50)) * 100 };
}

/** State that outlives one round: primed targets, and cases whose probe failed. */
export interface RunState {
  primed: Set<string>;
  dead: Map<string, string>;
}

/** One pass over every case × concurrency × target. A failing probe skips that case on that target. */
export async function runRound(options: Options, targets: Targets, load: LoadGenerator, state: RunState): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  const floorRuns = new Map<string, RunRecord>(); // floor requests shared by several cases run once
  for (const bench of options.cases) {
    for (const concurrency of options.concurrencies) {
      for (const target of options.targets) {
        const started = targets[target];
        if (!started) continue;
        const base = { case: bench.name, concurrency, target };
        const deadReason = state.dead.get(`${target}|${bench.name}`);
        if (deadReason) {
          records.push({ ...base, skipped: deadReason });
          continue;
        }
        const gateway = target === 'gateway' || target === 'baseline' ? targets[target] : undefined;
        const request = gateway ? bench.gateway(gateway.key, gateway.model) : bench.floor;
        const requestKey = `${target}|${JSON.stringify(request)}`;
        const shared = gateway ? undefined : floorRuns.get(`${concurrency}|${requestKey}`);
        if (shared) {
          records.push({ ...shared, case: bench.name });
          continue;
        }
        try {
          if (!state.primed.has(requestKey)) {
            const prime = jobFor(started.url, request, Math.max(...options.concurrencies), options);
            await load.run({ ...prime, warmupMs: 0, warmupRequests: options.primeRequests, durationMs: 1 }, () => undefined);
            state.primed.add(requestKey);
          }
          const record: RunRecord = { ...base, ...(await measure(load, started.child, jobFor(started.url, request, concurrency, options))) };
          records.push(record);
          if (!gateway) floorRuns.set(`${concurrency}|${requestKey}`, record);
          const r = record.result!;
          log(
            `  ${bench.name} c=${concurrency} ${target}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(3)} ms, CPU ${record.cpuUsPerReq?.toFixed(0) ?? '?'} µs/req` +
              (r.errors ? `, ${r.errors} errors (${r.firstError})` : ''),
          );
        } catch (error) {
          if (!(error instanceof JobFailed)) throw error;
          state.dead.set(`${target}|${bench.name}`, error.message);
          records.push({ ...base, skipped: error.message });
          log(`  SKIP ${bench.name} on ${target}: ${error.message}`);
        }
      }
    }
  }
  return records;
}

function median(values: Array<number | undefined>): number | undefined {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** Merges the rounds: the median of every number, errors and requests summed. */
export function mergeRounds(rounds: RunRecord[][]): RunRecord[] {
  if (rounds.length === 1) return rounds[0];
  return rounds[0].map((first, i) => {
    const same = rounds.map((round) => round[i]);
    const results = same.map((r) => r.result).filter((r): r is LoadResult => r !== undefined);
    if (results.length === 0) return first;
    const pick = (key: keyof LoadResult) => median(results.map((r) => r[key] as number)) ?? NaN;
    const result: LoadResult = {
      requests: results.reduce((n, r) => n + r.requests, 0),
      errors: results.reduce((n, r) => n + r.errors, 0),
      firstError: results.find((r) => r.firstError)?.firstError,
      elapsedMs: results.reduce((n, r) => n + r.elapsedMs, 0),
      rps: pick('rps'),
      p50: pick('p50'),
      p99: pick('p99'),
      mean: pick('mean'),
      ttfbP50: pick('ttfbP50'),
      ttfbP99: pick('ttfbP99'),
    };
    return { ...first, result, skipped: undefined, cpuUsPerReq: median(same.map((r) => r.cpuUsPerReq)), cpuPct: median(same.map((r) => r.cpuPct)) };
  });
}


