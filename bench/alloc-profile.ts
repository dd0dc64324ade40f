/**
 * What the gateway allocates per request: runs it with V8's sampling heap profiler counting
 * every allocation (collected objects included) during the measured window of one case, and
 * prints KB per request and the functions that allocate most, with their callers. Unlike CPU
 * time, bytes allocated per request barely move with the machine's load, so a change of a few
 * percent shows in one run (GC time follows allocation).
 *
 *   node --import tsx bench/alloc-profile.ts [--case chat] [--concurrency 50] [--seconds 4] [--top 30] [--gateway-dir <checkout>] [--burst]
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, stopChild } from './processes.ts';
import { defaultProvider, REPO, startGateway, startUpstream, type GatewayProvider } from './targets.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}

const where = (node: HeapNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\//, '')}:${node.callFrame.lineNumber + 1}`;

/** Self bytes by function, each with its callers (the three frames above it). */
function bySite(head: HeapNode): { total: number; sites: Array<{ site: string; bytes: number; callers: Map<string, number> }> } {
  const sites = new Map<string, { site: string; bytes: number; callers: Map<string, number> }>();
  let total = 0;
  const walk = (node: HeapNode, stack: string[]) => {
    const site = where(node);
    total += node.selfSize;
    if (node.selfSize > 0) {
      const entry = sites.get(site) ?? { site, bytes: 0, callers: new Map() };
      const caller = stack.slice(-3).reverse().join(' ← ');
      entry.bytes += node.selfSize;
      entry.callers.set(caller, (entry.callers.get(caller) ?? 0) + node.selfSize);
      sites.set(site, entry);
    }
    for (const child of node.children ?? []) walk(child, [...stack, site.split(' ')[0]]);
  };
  walk(head, []);
  return { total, sites: [...sites.values()].sort((a, b) => b.bytes - a.bytes) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      case: { type: 'string', default: 'chat' },
      concurrency: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '4' },
      top: { type: 'string', default: '30' },
      'gateway-dir': { type: 'string' },
      burst: { type: 'boolean' },
    },
  });
  const bench = CASES[values.case];
  if (!bench) throw new Error(`unknown case '${values.case}'; known: ${Object.keys(CASES).join(', ')}`);
  const gatewayDir = path.resolve(values['gateway-dir'] ?? REPO);
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'gateway-alloc-')), 'alloc.heapprofile');
  process.on('exit', killAllChildren);
  const upstream = await startUpstream(0, values.burst === true);
  const gateway = await startGateway({
    provider: defaultProvider(gatewayDir) as GatewayProvider,
    upstreamUrl: upstream.url,
    gatewayDir,
    nodeArgs: ['--import', path.join(REPO, 'bench/alloc-sampler.mjs')],
    env: { ALLOC_PROFILE_OUT: out },
  });
  const load = await LoadGenerator.start();
  try {
    const job = {
      origin: new URL(gateway.url).origin,
      ...bench.gateway(gateway.key, gateway.model),
      concurrency: Number(values.concurrency),
      warmupMs: 2_000,
      warmupRequests: 5_000,
      durationMs: Number(values.seconds) * 1000,
    };
    const result = await load.run(job, () => {
      gateway.child.proc.kill('SIGUSR2');
    });
    gateway.child.proc.kill('SIGUSR2');
    for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the write is one writeFileSync: let it finish
    const requests = result.requests - result.errors;
    const { total, sites } = bySite((JSON.parse(readFileSync(out, 'utf8')) as { head: HeapNode }).head);
    console.log(`gateway ${bench.name} c=${values.concurrency}: ${requests} requests, allocated ${(total / requests / 1024).toFixed(1)} KB/request (sampled every 512 B)\n`);
    for (const { site, bytes, callers } of sites.slice(0, Number(values.top))) {
      console.log(`${String(Math.round(bytes / requests)).padStart(7)} B  ${site}`);
      for (const [caller, b] of [...callers].sort((x, y) => y[1] - x[1]).slice(0, 2)) console.log(`${String(Math.round(b / requests)).padStart(16)} B ← ${caller}`);
    }
  } finally {
    await load.stop().catch(() => undefined);
    await stopChild(gateway.child);
    gateway.cleanup();
    await stopChild(upstream.child);
  }
}

main().catch((error: Error) => {
  console.error(`alloc-profile failed: ${error.message}`);
  killAllChildren();
  process.exitCode = 1;
});
