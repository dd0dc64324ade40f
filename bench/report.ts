/** Turns the bench's measurements into the printed tables. */
import type { LoadResult } from './load.ts';

export type TargetName = 'direct' | 'proxy' | 'gateway' | 'baseline';

export const TARGET_LABELS: Record<TargetName, string> = {
  direct: 'upstream (direct)',
  proxy: 'floor (proxy)',
  gateway: 'gateway',
  baseline: 'gateway (baseline)',
};

/** The targets that are a gateway (this checkout, and another one to compare with). */
export const GATEWAY_TARGETS: TargetName[] = ['gateway', 'baseline'];

export interface RunRecord {
  case: string;
  concurrency: number;
  target: TargetName;
  result?: LoadResult;
  /** Target process CPU time per successful request, µs. */
  cpuUsPerReq?: number;
  /** Target process CPU use during the measured phase, % of one core. */
  cpuPct?: number;
  skipped?: string;
}

export interface Goals {
  /** Gateway CPU per request ÷ the floor's (per case; `default` for the rest), at `cpuAt` connections. */
  cpuRatio: Record<string, number>;
  /**
   * The concurrency the CPU goal is judged at (issue 13: 50 connections). When the run did not
   * measure it, every measured concurrency is judged; other concurrencies over the goal are noted.
   */
  cpuAt?: number;
  addedP50Ms: number;
  /** Streams: time to first byte over the floor's at one connection. */
  addedTtfbMs: number;
  /** Peak RSS of a gateway process, MB. */
  peakRssMb: number;
}

function cpuGoal(goals: Goals, name: string): number {
  return goals.cpuRatio[name] ?? goals.cpuRatio.default;
}

const fixed = (n: number | undefined, digits: number): string => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '-' : `${(a / b).toFixed(2)}×`;

/** A plain text table: first column left-aligned, the rest right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function find(records: RunRecord[], name: string, concurrency: number, target: TargetName): RunRecord | undefined {
  return records.find((r) => r.case === name && r.concurrency === concurrency && r.target === target);
}

/** One table per case: a block per concurrency with a row per target and the gateway ÷ floor row. */
export function formatCaseTable(records: RunRecord[], name: string, description: string, stream: boolean, concurrencies: number[]): string {
  const header = ['target', 'conc', 'req/s', 'p50 ms', 'p99 ms', stream ? 'ttfb p50' : '', 'CPU µs/req', 'CPU %', 'errors'];
  const rows: string[][] = [];
  for (const c of concurrencies) {
    for (const target of ['direct', 'proxy', 'gateway', 'baseline'] as TargetName[]) {
      const r = find(records, name, c, target);
      if (!r) continue;
      if (r.skipped || !r.result) {
        rows.push([TARGET_LABELS[target], String(c), 'skipped', '', '', '', '', '', '']);
        continue;
      }
      const x = r.result;
      rows.push([
        TARGET_LABELS[target],
        String(c),
        fixed(x.rps, 0),
        fixed(x.p50, 3),
        fixed(x.p99, 3),
        stream ? fixed(x.ttfbP50, 3) : '',
        fixed(r.cpuUsPerReq, 0),
        fixed(r.cpuPct, 0),
        x.errors > 0 ? `${x.errors}/${x.requests}` : '0',
      ]);
    }
    const f = find(records, name, c, 'proxy')?.result ? find(records, name, c, 'proxy') : undefined;
    for (const target of GATEWAY_TARGETS) {
      const g = find(records, name, c, target)?.result ? find(records, name, c, target) : undefined;
      if (!g || !f) continue;
      rows.push([
        `  ${target} ÷ floor`,
        String(c),
        ratio(g.result!.rps, f.result!.rps),
        ratio(g.result!.p50, f.result!.p50),
        ratio(g.result!.p99, f.result!.p99),
        stream ? ratio(g.result!.ttfbP50, f.result!.ttfbP50) : '',
        ratio(g.cpuUsPerReq, f.cpuUsPerReq),
        '',
        '',
      ]);
    }
  }
  return `${name}: ${description}\n${formatTable(header, rows)}`;
}

/** The verdict table: per case and gateway target, CPU ratio per concurrency and added p50/ttfb at one connection, against the goals. */
export function formatSummary(records: RunRecord[], cases: string[], concurrencies: number[], goals: Goals, streams: ReadonlySet<string> = new Set()): string {
  const header = ['case', 'target', ...concurrencies.map((c) => `CPU ×floor c=${c}`), 'added p50 c=1', 'added ttfb c=1', 'verdict'];
  const rows: string[][] = [];
  for (const name of cases) {
    for (const target of GATEWAY_TARGETS) {
      if (!records.some((r) => r.case === name && r.target === target)) continue;
      const cpuRatios = concurrencies.map((c) => {
        const g = find(records, name, c, target);
        const f = find(records, name, c, 'proxy');
        return g?.cpuUsPerReq !== undefined && f?.cpuUsPerReq ? g.cpuUsPerReq / f.cpuUsPerReq : undefined;
      });
      const g1 = find(records, name, 1, target)?.result;
      const f1 = find(records, name, 1, 'proxy')?.result;
      const added = g1 && f1 ? g1.p50 - f1.p50 : undefined;
      const addedTtfb = g1 && f1 && streams.has(name) ? g1.ttfbP50 - f1.ttfbP50 : undefined;
      const measured = cpuRatios.filter((x): x is number => x !== undefined);
      const goal = cpuGoal(goals, name);
      const atIndex = goals.cpuAt === undefined ? -1 : concurrencies.indexOf(goals.cpuAt);
      const judged = atIndex >= 0 && cpuRatios[atIndex] !== undefined ? [cpuRatios[atIndex]] : measured;
      const misses: string[] = [];
      const notes: string[] = [];
      const errors = records.filter((r) => r.case === name && r.target === target).reduce((n, r) => n + (r.result?.errors ?? 0), 0);
      if (errors > 0) misses.push(`${errors} failed requests`);
      if (judged.some((x) => x > goal)) misses.push(`CPU > ${goal}×${judged.length === 1 && atIndex >= 0 ? ` at c=${goals.cpuAt}` : ''}`);
      else if (judged.length < measured.length) {
        const over = concurrencies.filter((c, i) => i !== atIndex && (cpuRatios[i] ?? 0) > goal);
        if (over.length > 0) notes.push(`CPU > ${goal}× at c=${over.join(',')}`);
      }
      if (addedTtfb !== undefined && addedTtfb > goals.addedTtfbMs) misses.push(`added ttfb > ${goals.addedTtfbMs} ms`);
      else if (addedTtfb === undefined && added !== undefined && added >= goals.addedP50Ms) misses.push(`added p50 ≥ ${goals.addedP50Ms} ms`);
      const noted = notes.length ? ` (note: ${notes.join(', ')})` : '';
      const verdict = measured.length === 0 && added === undefined ? 'not measured' : misses.length ? `misses: ${misses.join(', ')}${noted}` : `meets goals${noted}`;
      const ms = (n: number | undefined) => (n === undefined ? '-' : `${n >= 0 ? '+' : ''}${n.toFixed(3)} ms`);
      rows.push([name, target, ...cpuRatios.map((x) => (x === undefined ? '-' : `${x.toFixed(2)}×`)), ms(added), ms(addedTtfb), verdict]);
    }
  }
  const cpu = Object.entries(goals.cpuRatio)
    .map(([name, value]) => `${name} ${value}×`)
    .join(', ');
  const where = goals.cpuAt === undefined || !concurrencies.includes(goals.cpuAt) ? 'at every concurrency' : `at ${goals.cpuAt} connections`;
  return `Summary (goals: gateway CPU/request ÷ floor ${where}: ${cpu}; streams: added ttfb at 1 connection ≤ ${goals.addedTtfbMs} ms; non-streaming: added p50 < ${goals.addedP50Ms} ms)\n${formatTable(header, rows)}`;
}

/** Peak RSS of each target process over the whole run. */
export function formatMemory(peaks: Partial<Record<TargetName, number>>, goalMb?: number): string {
  const rows = (Object.keys(peaks) as TargetName[]).map((t) => {
    const mb = peaks[t];
    const verdict = goalMb === undefined || !GATEWAY_TARGETS.includes(t) || mb === undefined ? '' : mb <= goalMb ? 'meets goal' : `misses: > ${goalMb} MB`;
    return [TARGET_LABELS[t], fixed(mb, 1), verdict];
  });
  return `Peak RSS (VmHWM, whole run${goalMb === undefined ? '' : `; goal for a gateway ≤ ${goalMb} MB`})\n${formatTable(['target', 'MB', ''], rows)}`;
}
