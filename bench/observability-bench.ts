/**
 * What observability costs: the gateway with metrics on (the default), with metrics off, and
 * with tracing on (OTLP/HTTP to a sink in this process), measured back to back in the same
 * run, interleaved round by round, CPU per request as in the main bench (bench/README.md).
 *
 *   node --import tsx bench/observability-bench.ts [--cases chat,chat-stream] [--concurrency 1,16]
 *        [--rounds 3] [--duration 4] [--variants on,off,tracing] [--baseline-dir <checkout>]
 *
 * `--baseline-dir` adds a gateway run from another checkout (e.g. one from before
 * observability existed, with a node_modules of its own or a symlink to this one).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import type { LoadJob } from './load.ts';
import { killAllChildren, readCpuMs, stopChild } from './processes.ts';
import { defaultProvider, startGateway, startUpstream, type StartedGateway } from './targets.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Variant {
  name: string;
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  gatewayDir?: string;
}

/** An OTLP/HTTP receiver that accepts and drops everything (what a collector costs is not ours). */
async function startOtlpSink(): Promise<{ url: string; spans: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function median(values: number[]): number {
  const xs = [...values].sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: 'chat,chat-stream' },
      concurrency: { type: 'string', default: '1,16' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '4' },
      warmup: { type: 'string', default: '1' },
      prime: { type: 'string', default: '5000' },
      variants: { type: 'string', default: 'on,off,tracing' },
      'baseline-dir': { type: 'string' },
    },
  });
  const cases = values.cases!.split(',').map((name) => {
    const found = CASES[name];
    if (!found) throw new Error(`unknown case ${name}`);
    return found;
  });
  const concurrencies = values.concurrency!.split(',').map(Number);
  const rounds = Number(values.rounds);
  const durationMs = Number(values.duration) * 1000;
  const warmupMs = Number(values.warmup) * 1000;
  const sink = await startOtlpSink();
  const all: Record<string, Variant> = {
    on: { name: 'metrics on' },
    off: { name: 'metrics off', config: { metrics: { enabled: false } } },
    tracing: { name: 'metrics + tracing', env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } },
  };
  const variants = values.variants!.split(',').map((v) => {
    if (!all[v]) throw new Error(`unknown variant ${v} (on, off, tracing)`);
    return all[v];
  });
  if (values['baseline-dir']) variants.push({ name: 'baseline checkout', gatewayDir: values['baseline-dir'] });

  const upstream = await startUpstream(0);
  const provider = defaultProvider();
  const gateways: StartedGateway[] = [];
  const load = await LoadGenerator.start();
  try {
    for (const variant of variants) {
      gateways.push(await startGateway({ provider, upstreamUrl: upstream.url, config: variant.config, env: variant.env, gatewayDir: variant.gatewayDir }));
    }
    const results = new Map<string, number[]>();
    for (const bench of cases) {
      for (let v = 0; v < variants.length; v += 1) {
        const gateway = gateways[v];
        const request = bench.gateway(gateway.key, gateway.model);
        const job: LoadJob = { origin: new URL(gateway.url).origin, ...request, concurrency: Math.max(...concurrencies), warmupMs: 0, warmupRequests: Number(values.prime), durationMs: 1 };
        await load.run(job, () => undefined);
      }
    }
    for (let round = 0; round < rounds; round += 1) {
      log(`round ${round + 1}/${rounds}`);
      for (const bench of cases) {
        for (const concurrency of concurrencies) {
          for (let v = 0; v < variants.length; v += 1) {
            const gateway = gateways[v];
            const request = bench.gateway(gateway.key, gateway.model);
            let cpu0: number | undefined;
            const result = await load.run({ origin: new URL(gateway.url).origin, ...request, concurrency, warmupMs, durationMs }, () => {
              cpu0 = readCpuMs(gateway.child.pid);
            });
            await sleep(50);
            const cpu1 = readCpuMs(gateway.child.pid);
            const good = result.requests - result.errors;
            if (cpu0 === undefined || cpu1 === undefined || good === 0) throw new Error(`${variants[v].name}: no measurement (${result.firstError ?? 'no CPU counters'})`);
            const perReq = ((cpu1 - cpu0) * 1000) / good;
            const key = `${bench.name}|${concurrency}|${v}`;
            results.set(key, [...(results.get(key) ?? []), perReq]);
            log(`  ${bench.name} c=${concurrency} ${variants[v].name}: ${result.rps.toFixed(0)} req/s, CPU ${perReq.toFixed(1)} µs/req${result.errors ? `, ${result.errors} errors` : ''}`);
          }
        }
      }
    }
    const out: string[] = ['', `CPU µs per request (median of ${rounds} round(s)), and the ratio to "${variants[0].name}"`, ''];
    const header = ['case', 'conns', ...variants.map((v) => v.name)];
    const rows: string[][] = [];
    for (const bench of cases) {
      for (const concurrency of concurrencies) {
        const base = median(results.get(`${bench.name}|${concurrency}|0`)!);
        rows.push([
          bench.name,
          String(concurrency),
          ...variants.map((_, v) => {
            const value = median(results.get(`${bench.name}|${concurrency}|${v}`)!);
            return v === 0 ? value.toFixed(1) : `${value.toFixed(1)} (${((value / base - 1) * 100).toFixed(1)}%)`;
          }),
        ]);
      }
    }
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const row of [header, ...rows]) out.push(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
    if (variants.some((v) => v.env?.OTEL_EXPORTER_OTLP_ENDPOINT)) out.push('', `OTLP bytes received by the sink: ${sink.spans()}`);
    console.log(out.join('\n'));
  } finally {
    await load.stop().catch(() => undefined);
    await Promise.all([...gateways.map((g) => stopChild(g.child)), stopChild(upstream.child)]);
    for (const g of gateways) g.cleanup();
    killAllChildren();
    await sink.close();
  }
}

main().catch((error: Error) => {
  console.error(`observability bench failed: ${error.message}`);
  killAllChildren();
  process.exitCode = 1;
});
