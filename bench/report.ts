/** Turns the bench's measurements into the printed tables. */
import type { LoadResult } from './load.ts';

export type TargetName = 'direct' | 'proxy' | 'gateway';

export const TARGET_LABELS: Record<TargetName, string> = {
  direct: 'upstream (direct)',
  proxy: 'floor (proxy)',
  gateway: 'gateway',
};

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
  cpuRatio: number;
  addedP50Ms: number;
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
    for (const target of ['direct', 'proxy', 'gateway'] as TargetName[]) {
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
    const g = find(records, name, c, 'gateway')?.result ? find(records, name, c, 'gateway') : undefined;
    const f = find(records, name, c, 'proxy')?.result ? find(records, name, c, 'proxy') : undefined;
    if (g && f) {
      rows.push([
        '  gateway ÷ floor',
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

/** The verdict table: CPU ratio per concurrency and added p50 at one connection, against the goals. */
export function formatSummary(records: RunRecord[], cases: string[], concurrencies: number[], goals: Goals): string {
  const header = ['case', ...concurrencies.map((c) => `CPU ×floor c=${c}`), 'added p50 c=1', 'added ttfb c=1', 'verdict'];
  const rows = cases.map((name) => {
    const cpuRatios = concurrencies.map((c) => {
      const g = find(records, name, c, 'gateway');
      const f = find(records, name, c, 'proxy');
      return g?.cpuUsPerReq !== undefined && f?.cpuUsPerReq ? g.cpuUsPerReq / f.cpuUsPerReq : undefined;
    });
    const g1 = find(records, name, 1, 'gateway')?.result;
    const f1 = find(records, name, 1, 'proxy')?.result;
    const added = g1 && f1 ? g1.p50 - f1.p50 : undefined;
    const addedTtfb = g1 && f1 ? g1.ttfbP50 - f1.ttfbP50 : undefined;
    const measured = cpuRatios.filter((x): x is number => x !== undefined);
    const misses: string[] = [];
    const errors = records.filter((r) => r.case === name).reduce((n, r) => n + (r.result?.errors ?? 0), 0);
    if (errors > 0) misses.push(`${errors} failed requests`);
    if (measured.some((x) => x > goals.cpuRatio)) misses.push(`CPU > ${goals.cpuRatio}×`);
    if (added !== undefined && added >= goals.addedP50Ms) misses.push(`added p50 ≥ ${goals.addedP50Ms} ms`);
    const verdict = measured.length === 0 && added === undefined ? 'not measured' : misses.length ? `misses: ${misses.join(', ')}` : 'meets goals';
    const ms = (n: number | undefined) => (n === undefined ? '-' : `${n >= 0 ? '+' : ''}${n.toFixed(3)} ms`);
    return [name, ...cpuRatios.map((x) => (x === undefined ? '-' : `${x.toFixed(2)}×`)), ms(added), ms(addedTtfb), verdict];
  });
  return `Summary (goals: gateway CPU/request ≤ ${goals.cpuRatio}× floor at every concurrency; added p50 at 1 connection < ${goals.addedP50Ms} ms)\n${formatTable(header, rows)}`;
}

/** Peak RSS of each target process over the whole run. */
export function formatMemory(peaks: Partial<Record<TargetName, number>>): string {
  const rows = (Object.keys(peaks) as TargetName[]).map((t) => [TARGET_LABELS[t], fixed(peaks[t], 1)]);
  return `Peak RSS (VmHWM, whole run)\n${formatTable(['target', 'MB'], rows)}`;
}
