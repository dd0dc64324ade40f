/** The bench's command line. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CASES, DEFAULT_CASES, type BenchCase } from './cases.ts';
import type { TargetName } from './report.ts';
import { defaultProvider, REPO, type GatewayProvider } from './targets.ts';

export const HELP = `Usage: npm run bench -- [options]

  --quick                 short phases (0.3 s warm-up, 1.5 s measured, 2000 priming requests)
  --warmup <s>            warm-up before each measured phase, seconds (default 1)
  --duration <s>          measured phase, seconds (default 4)
  --rounds <n>            repeat every measurement n times and report medians (default 1)
  --prime <n>             requests sent to each target per case before anything is measured,
                          so the JIT has settled (default 5000)
  --concurrency <list>    connections, e.g. 1,16 (default 1,50; 1 is needed for "added p50")
  --cases <list>          ${Object.keys(CASES).join(', ')} (default ${DEFAULT_CASES.join(',')})
  --targets <list>        direct, proxy, gateway (default all three)
  --provider <p>          openai (gateway → fake upstream) or mock (gateway answers itself);
                          default openai once plugins/openai exists
  --chunk-gap-ms <n>      fake upstream: ms between stream events (default 0 = next event-loop turn)
  --burst                 fake upstream: a stream's events all at once, in one write (a fast model or a cache)
  --pin                   measured targets (floor, gateways) on the last CPU, everything else (load generator,
                          fake upstream, this process) on the others (taskset): less noise on a small shared box
  --gateway-dir <dir>     run bin/gateway from another checkout (default: this repo)
  --baseline-dir <dir>    also run the gateway of another checkout (e.g. before a change), measured
                          back to back with this one: before/after in the same run
  --json <file>           also write every measurement as JSON
  -h, --help`;

export interface Options {
  warmupMs: number;
  durationMs: number;
  rounds: number;
  primeRequests: number;
  concurrencies: number[];
  cases: BenchCase[];
  targets: TargetName[];
  provider: GatewayProvider;
  chunkGapMs: number;
  /** The fake upstream writes a stream's events all at once instead of one at a time. */
  burst: boolean;
  /** Targets on the last CPU, the rest on the others (taskset). */
  pin: boolean;
  gatewayDir: string;
  baselineDir?: string;
  json?: string;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function positive(value: string | undefined, fallback: number, name: string, integer = false): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) throw new Error(`--${name} must be a non-negative ${integer ? 'integer' : 'number'}, got '${value}'`);
  return n;
}

/** Parses argv; prints help and exits on -h; throws a one-line error on bad input. */
export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      warmup: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      prime: { type: 'string' },
      concurrency: { type: 'string' },
      cases: { type: 'string' },
      targets: { type: 'string' },
      provider: { type: 'string' },
      'chunk-gap-ms': { type: 'string' },
      burst: { type: 'boolean' },
      pin: { type: 'boolean' },
      'gateway-dir': { type: 'string' },
      'baseline-dir': { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const quick = values.quick === true;
  const cases = values.cases ? list(values.cases) : DEFAULT_CASES;
  const unknownCases = cases.filter((c) => !CASES[c]);
  if (unknownCases.length) throw new Error(`unknown case(s): ${unknownCases.join(', ')}; known: ${Object.keys(CASES).join(', ')}`);
  const targets = list(values.targets ?? 'direct,proxy,gateway') as TargetName[];
  if (targets.length === 0 || targets.some((t) => !['direct', 'proxy', 'gateway'].includes(t))) throw new Error('--targets takes direct, proxy, gateway');
  const concurrencies = list(values.concurrency ?? '1,50').map(Number);
  if (concurrencies.length === 0 || concurrencies.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--concurrency takes positive integers, e.g. 1,16');
  const gatewayDir = path.resolve(values['gateway-dir'] ?? REPO);
  if (!existsSync(path.join(gatewayDir, 'bin/gateway'))) throw new Error(`--gateway-dir: no bin/gateway in ${gatewayDir}`);
  const baselineDir = values['baseline-dir'] === undefined ? undefined : path.resolve(values['baseline-dir']);
  if (baselineDir && !existsSync(path.join(baselineDir, 'bin/gateway'))) throw new Error(`--baseline-dir: no bin/gateway in ${baselineDir}`);
  if (baselineDir) targets.push('baseline');
  const provider = (values.provider ?? defaultProvider(gatewayDir)) as GatewayProvider;
  if (provider !== 'openai' && provider !== 'mock') throw new Error('--provider is openai or mock');
  const durationMs = positive(values.duration, quick ? 1.5 : 4, 'duration') * 1000;
  if (durationMs === 0) throw new Error('--duration must be above 0');
  return {
    warmupMs: positive(values.warmup, quick ? 0.3 : 1, 'warmup') * 1000,
    durationMs,
    rounds: Math.max(1, positive(values.rounds, 1, 'rounds', true)),
    primeRequests: positive(values.prime, quick ? 2000 : 5000, 'prime', true),
    concurrencies,
    cases: cases.map((c) => CASES[c]),
    targets,
    provider,
    chunkGapMs: positive(values['chunk-gap-ms'], 0, 'chunk-gap-ms'),
    burst: values.burst === true,
    pin: values.pin === true,
    gatewayDir,
    baselineDir,
    json: values.json,
  };
}
