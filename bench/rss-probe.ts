/**
 * Peak RSS of one gateway under the bench's load, with given node flags (issue 13's RSS goal):
 * the same sequence as `npm run bench` (priming, then each case at 1 and 50 connections), and
 * where the resident memory is at the end (/proc smaps_rollup: anonymous vs file-backed).
 *
 *   node --import tsx bench/rss-probe.ts [--node-args="--trace-gc --heap-growing-percent=50"] [--rounds 2] [--env "K=V ..."] [--config '{"limits":…}']
 *
 * (`--node-args` needs the `=` form when its value starts with a dash.)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CASES, DEFAULT_CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, readCpuMs, readPeakRssMb, stopChild } from './processes.ts';
import { defaultProvider, startGateway, startUpstream } from './targets.ts';

const { values } = parseArgs({
  options: {
    'node-args': { type: 'string', default: '' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '4000' },
    env: { type: 'string', default: '' },
    /** Top-level gateway config keys (JSON), e.g. to compare a setting's memory. */
    config: { type: 'string' },
    /** Print the gateway's stdout lines matching this regex at the end (e.g. a preload's memory samples). */
    'print-lines': { type: 'string' },
  },
});
const nodeArgs = values['node-args'].split(' ').filter(Boolean);
const env = Object.fromEntries(values.env.split(' ').filter(Boolean).map((kv) => kv.split('=') as [string, string]));

function rollup(pid: number): string {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pick = (k: string) => Math.round(Number(text.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm'))?.[1] ?? 0) / 1024);
    return `Rss ${pick('Rss')} MB (anon ${pick('Anonymous')}, file ${pick('Rss') - pick('Anonymous')})`;
  } catch {
    return '';
  }
}

try {
  const upstream = await startUpstream(0);
  const config = values.config ? (JSON.parse(values.config) as Record<string, unknown>) : undefined;
  const gateway = await startGateway({ provider: defaultProvider(), upstreamUrl: upstream.url, nodeArgs, env: Object.keys(env).length ? env : undefined, config });
  const load = await LoadGenerator.start();
  const origin = new URL(gateway.url).origin;
  const durationMs = Number(values.duration);
  let requests = 0;
  const cpu0 = readCpuMs(gateway.child.pid)!;
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const name of DEFAULT_CASES) {
      const request = CASES[name].gateway(gateway.key, gateway.model);
      if (round === 0) {
        const r = await load.run({ origin, ...request, concurrency: 50, warmupMs: 0, warmupRequests: 5000, durationMs: 1 }, () => undefined);
        requests += r.requests;
      }
      for (const concurrency of [1, 50]) {
        const r = await load.run({ origin, ...request, concurrency, warmupMs: 1000, durationMs }, () => undefined);
        requests += r.requests;
        process.stderr.write(`${name} c=${concurrency}: ${Math.round(r.requests / (r.elapsedMs / 1000))} req/s, peak ${readPeakRssMb(gateway.child.pid)?.toFixed(1)} MB\n`);
      }
    }
  }
  const cpu = readCpuMs(gateway.child.pid)! - cpu0;
  console.log(`node args [${nodeArgs.join(' ')}] env [${values.env}]: peak RSS ${readPeakRssMb(gateway.child.pid)?.toFixed(1)} MB; now ${rollup(gateway.child.pid)}; CPU ${((cpu * 1000) / requests).toFixed(1)} µs/req over ${requests} requests (incl. warm-ups)`);
  if (values['print-lines']) for (const line of gateway.child.lines) if (new RegExp(values['print-lines']).test(line)) console.log(line);
  // With --trace-gc among the node args: how many full GCs, and their main-thread time.
  const majors = gateway.child.lines.filter((line) => line.includes('Mark-Compact'));
  if (majors.length > 0) {
    const ms = majors.reduce((sum, line) => sum + Number(line.match(/MB, ([\d.]+) \//)?.[1] ?? 0), 0);
    console.log(`full GCs: ${majors.length}, ${ms.toFixed(1)} ms on the main thread (incremental steps not counted)`);
  }
  await load.stop();
  await stopChild(gateway.child);
  await stopChild(upstream.child);
} finally {
  killAllChildren();
}
