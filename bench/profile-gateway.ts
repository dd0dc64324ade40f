/**
 * Where the gateway's CPU goes: runs the gateway under `node --cpu-prof` against the fake
 * upstream, drives one case, stops it cleanly (so the profile is written) and prints self time
 * by function and by area for the measured window only (startup and warm-up left out).
 * `--target proxy` profiles the pass-through proxy the same way, to compare line by line.
 *
 *   node --import tsx bench/profile-gateway.ts [--case chat-stream] [--concurrency 16] [--seconds 8] [--top 30] [--target proxy] [--burst]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CASES } from './cases.ts';
import { LoadGenerator } from './load-client.ts';
import { killAllChildren, readCpuMs, stopChild } from './processes.ts';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from './summarize-profile.ts';
import { defaultProvider, REPO, startGateway, startProxy, startUpstream, type GatewayProvider, type StartedGateway, type StartedTarget } from './targets.ts';

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      case: { type: 'string', default: 'chat' },
      concurrency: { type: 'string', default: '16' },
      seconds: { type: 'string', default: '8' },
      top: { type: 'string', default: '30' },
      provider: { type: 'string' },
      'gateway-dir': { type: 'string' },
      'prof-dir': { type: 'string' },
      target: { type: 'string', default: 'gateway' },
      burst: { type: 'boolean' },
    },
  });
  const bench = CASES[values.case];
  if (!bench) throw new Error(`unknown case '${values.case}'; known: ${Object.keys(CASES).join(', ')}`);
  const gatewayDir = path.resolve(values['gateway-dir'] ?? REPO);
  const provider = (values.provider ?? defaultProvider(gatewayDir)) as GatewayProvider;
  const profDir = values['prof-dir'] ?? mkdtempSync(path.join(tmpdir(), 'gateway-prof-'));
  const concurrency = Number(values.concurrency);

  process.on('exit', killAllChildren);
  const upstream = await startUpstream(0, values.burst === true);
  const nodeArgs = ['--cpu-prof', '--cpu-prof-dir', profDir];
  let target: StartedTarget | undefined;
  let gateway: StartedGateway | undefined;
  let load: LoadGenerator | undefined;
  try {
    if (values.target === 'proxy') target = await startProxy(upstream.url, nodeArgs);
    else if (values.target === 'gateway') target = gateway = await startGateway({ provider, upstreamUrl: upstream.url, gatewayDir, nodeArgs });
    else throw new Error('--target is gateway or proxy');
    load = await LoadGenerator.start();
    const request = gateway ? bench.gateway(gateway.key, gateway.model) : bench.floor;
    const job = {
      origin: new URL(target.url).origin,
      ...request,
      concurrency,
      warmupMs: 2_000,
      warmupRequests: 5_000,
      durationMs: Number(values.seconds) * 1000,
    };
    let window: [number, number] = [0, 0];
    let cpu0 = 0;
    const result = await load.run(job, () => {
      window[0] = monotonicUs();
      cpu0 = readCpuMs(target!.child.pid) ?? 0;
    });
    window[1] = monotonicUs();
    const cpuMs = (readCpuMs(target.child.pid) ?? 0) - cpu0;
    const good = result.requests - result.errors;
    console.log(
      `${values.target} ${bench.name} c=${concurrency}: ${good} requests, ${result.rps.toFixed(0)} req/s, process CPU ${((cpuMs * 1000) / good).toFixed(0)} µs/req (profiler on: expect some overhead)`,
    );
    await stopChild(target.child, 'SIGINT', 15_000);
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile in ${profDir}: the ${values.target} did not exit cleanly on SIGINT`);
    const profile = JSON.parse(readFileSync(path.join(profDir, file), 'utf8')) as CpuProfile;
    if (window[0] < profile.startTime || window[1] > profile.endTime) {
      console.log('note: the measured window is not inside the profile clock; summarising the whole profile');
      window = [profile.startTime, profile.endTime];
    }
    console.log(`profile: ${path.join(profDir, file)}\n`);
    console.log(formatProfileSummary(summarizeProfile(profile, window), Number(values.top), good));
  } finally {
    await load?.stop().catch(() => undefined);
    if (target) await stopChild(target.child);
    gateway?.cleanup();
    await stopChild(upstream.child);
  }
}

main().catch((error: Error) => {
  console.error(`profile failed: ${error.message}`);
  killAllChildren();
  process.exitCode = 1;
});
