/**
 * Reads one or more `npm run bench -- --json <file>` results (same code, any number of rounds)
 * and prints, per case and concurrency, the median over all rounds of each round's own ratio
 * to the floor. Within a round the floor and the gateways are measured back to back, so each
 * round's ratio is a paired measurement; on a machine whose load drifts from minute to minute
 * the median of those is steadier than the ratio of the medians the bench prints.
 *
 *   node --import tsx bench/paired-rounds.ts run1.json run2.json …
 */
import { readFileSync } from 'node:fs';
import type { RunRecord } from './report.ts';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node --import tsx bench/paired-rounds.ts <bench --json file>…');
  process.exit(1);
}
const rounds = files.flatMap((file) => (JSON.parse(readFileSync(file, 'utf8')) as { rounds: RunRecord[][] }).rounds);

function median(values: number[]): number {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The value at fraction `p` of the sorted values (0.25 and 0.75: the middle half). */
function quantile(values: number[], p: number): number {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
}

const find = (round: RunRecord[], name: string, concurrency: number, target: string) => round.find((r) => r.case === name && r.concurrency === concurrency && r.target === target);
const cases = [...new Set(rounds.flat().map((r) => r.case))];
const concurrencies = [...new Set(rounds.flat().map((r) => r.concurrency))].sort((a, b) => a - b);
const times = (x: number) => `${x.toFixed(2)}×`;
const ms = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)} ms` : '-');

console.log(`${rounds.length} paired rounds from ${files.length} file(s); CPU per request ÷ the floor's in the same round, median (middle half)`);
const rows: Record<string, string>[] = [];
for (const name of cases) {
  for (const concurrency of concurrencies) {
    const after: number[] = [];
    const before: number[] = [];
    const ttfbAfter: number[] = [];
    const ttfbBefore: number[] = [];
    const floorCpu: number[] = [];
    for (const round of rounds) {
      const floor = find(round, name, concurrency, 'proxy');
      const gateway = find(round, name, concurrency, 'gateway');
      const baseline = find(round, name, concurrency, 'baseline');
      if (!floor?.cpuUsPerReq || !gateway?.cpuUsPerReq) continue;
      floorCpu.push(floor.cpuUsPerReq);
      after.push(gateway.cpuUsPerReq / floor.cpuUsPerReq);
      if (baseline?.cpuUsPerReq) before.push(baseline.cpuUsPerReq / floor.cpuUsPerReq);
      const f = floor.result?.ttfbP50;
      if (f !== undefined && gateway.result?.ttfbP50 !== undefined) ttfbAfter.push(gateway.result.ttfbP50 - f);
      if (f !== undefined && baseline?.result?.ttfbP50 !== undefined) ttfbBefore.push(baseline.result.ttfbP50 - f);
    }
    if (after.length === 0) continue;
    rows.push({
      case: name,
      conc: String(concurrency),
      rounds: String(after.length),
      'floor µs/req': median(floorCpu).toFixed(0),
      'gateway ÷ floor': `${times(median(after))} (${quantile(after, 0.25).toFixed(2)}–${quantile(after, 0.75).toFixed(2)})`,
      'baseline ÷ floor': before.length ? `${times(median(before))} (${quantile(before, 0.25).toFixed(2)}–${quantile(before, 0.75).toFixed(2)})` : '-',
      'added ttfb': ms(median(ttfbAfter)),
      'baseline added ttfb': ms(median(ttfbBefore)),
    });
  }
}
console.table(rows);
