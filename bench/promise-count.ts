/**
 * Promises made and reactions run per request, gateway against the floor: a count that does not
 * move with the machine's load. Each promise hop (a `.then`, an `await`, a `new Promise`) costs its
 * allocations (the promise, the reaction, the closure) and a microtask; the floor makes 2 a request.
 *
 *   node --import tsx bench/promise-count.ts [--case chat] [--target gateway|proxy] [--sites /tmp/sites.txt] [--gateway-dir <checkout>] [--burst]
 *
 * `--sites` writes where the gateway's promises were made (one in 97 sampled), most first.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, stopChild, type Child } from './processes.ts';
import { defaultProvider, REPO, startGateway, startProxy, startUpstream, type GatewayProvider, type StartedGateway, type StartedTarget } from './targets.ts';

const COUNTER = fileURLToPath(new URL('./promise-counter.mjs', import.meta.url));

/** Signals the child and waits for the counts it writes after `before` stderr lines. */
async function counts(child: Child): Promise<[number, number]> {
  const seen = child.stderrTail().split('PROMISES').length;
  child.proc.kill('SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const tail = child.stderrTail();
    if (tail.split('PROMISES').length > seen) {
      const all = [...tail.matchAll(/PROMISES (\d+) (\d+)/g)];
      const last = all[all.length - 1];
      return [Number(last[1]), Number(last[2])];
    }
  }
  throw new Error('the target did not write its promise counts');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      case: { type: 'string', default: 'chat' },
      target: { type: 'string', default: 'gateway' },
      sites: { type: 'string' },
      'gateway-dir': { type: 'string' },
      seconds: { type: 'string', default: '3' },
      burst: { type: 'boolean' },
    },
  });
  const bench = CASES[values.case];
  if (!bench) throw new Error(`unknown case '${values.case}'; known: ${Object.keys(CASES).join(', ')}`);
  if (values.sites) process.env.PROMISE_SITES = path.resolve(values.sites);
  process.on('exit', killAllChildren);
  const upstream = await startUpstream(0, values.burst === true);
  const nodeArgs = ['--import', COUNTER];
  let target: StartedTarget | undefined;
  let gateway: StartedGateway | undefined;
  let load: LoadGenerator | undefined;
  try {
    if (values.target === 'proxy') target = await startProxy(upstream.url, nodeArgs);
    else {
      const gatewayDir = path.resolve(values['gateway-dir'] ?? REPO);
      target = gateway = await startGateway({ provider: defaultProvider(gatewayDir) as GatewayProvider, upstreamUrl: upstream.url, gatewayDir, nodeArgs });
    }
    load = await LoadGenerator.start();
    const request = gateway ? bench.gateway(gateway.key, gateway.model) : bench.floor;
    const origin = new URL(target.url).origin;
    await load.run({ origin, ...request, concurrency: 50, warmupMs: 500, warmupRequests: 3_000, durationMs: 1_000 }, () => undefined);
    const before = await counts(target.child);
    const result = await load.run({ origin, ...request, concurrency: 50, warmupMs: 0, warmupRequests: 0, durationMs: Number(values.seconds) * 1000 }, () => undefined);
    const after = await counts(target.child);
    const n = result.requests;
    console.log(`${values.target} ${bench.name}: ${n} requests, ${((after[0] - before[0]) / n).toFixed(1)} promises and ${((after[1] - before[1]) / n).toFixed(1)} reactions a request`);
    if (values.sites) console.log(`sites: ${values.sites}`);
  } finally {
    await load?.stop().catch(() => undefined);
    if (target) await stopChild(target.child);
    gateway?.cleanup();
    await stopChild(upstream.child);
  }
}

main().catch((error: Error) => {
  console.error(`promise-count failed: ${error.message}`);
  killAllChildren();
  process.exitCode = 1;
});
