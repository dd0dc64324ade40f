/**
 * Starting the bench's processes: the fake upstream, the pass-through proxy and the gateway
 * (with a throw-away config and data dir), each as its own child process on 127.0.0.1.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UPSTREAM_MODEL } from './fake-upstream.ts';
import { startChild, type Child } from './processes.ts';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
const BENCH = path.join(REPO, 'bench');
const TSX = ['--import', 'tsx'];

/** Which provider the gateway routes to: the openai plugin → fake upstream, or the built-in mock. */
export type GatewayProvider = 'openai' | 'mock';

export interface StartedTarget {
  child: Child;
  url: string;
}

export interface StartedGateway extends StartedTarget {
  key: string;
  model: string;
  dataDir: string;
  cleanup: () => void;
}

/** The openai plugin is used once it exists; until then the mock stands in. */
export function defaultProvider(gatewayDir = REPO): GatewayProvider {
  return existsSync(path.join(gatewayDir, 'plugins/openai/index.ts')) ? 'openai' : 'mock';
}

export async function startUpstream(chunkGapMs: number, burst = false): Promise<StartedTarget> {
  const { child, match } = await startChild(
    'fake-upstream',
    [...TSX, path.join(BENCH, 'fake-upstream.ts'), '--port', '0', '--chunk-gap-ms', String(chunkGapMs), ...(burst ? ['--burst'] : [])],
    /listening on (http:\/\/\S+)/,
    { cwd: REPO },
  );
  return { child, url: match[1] };
}

export async function startProxy(upstreamUrl: string, nodeArgs: string[] = [], launch: { launcher?: string[]; timeoutMs?: number } = {}): Promise<StartedTarget> {
  const { child, match } = await startChild(
    'passthrough-proxy',
    [...nodeArgs, ...TSX, path.join(BENCH, 'passthrough-proxy.ts'), '--upstream', upstreamUrl, '--port', '0'],
    /listening on (http:\/\/\S+)/,
    { cwd: REPO, ...launch },
  );
  return { child, url: match[1] };
}

function gatewayConfig(provider: GatewayProvider, upstreamUrl: string): { config: unknown; model: string } {
  const providers =
    provider === 'openai'
      ? { bench: { plugin: 'openai', baseURL: `${upstreamUrl}/v1`, apiKey: 'x', models: [UPSTREAM_MODEL] } }
      : { mock: { plugin: 'mock' } };
  return {
    config: { server: { host: '127.0.0.1' }, logging: { level: 'error' }, providers },
    model: provider === 'openai' ? `bench/${UPSTREAM_MODEL}` : 'mock/echo',
  };
}

export interface GatewayLaunch {
  provider: GatewayProvider;
  upstreamUrl: string;
  /** The checkout whose `bin/gateway` runs (default: this repo), e.g. to compare two commits. */
  gatewayDir?: string;
  /** Arguments for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Top-level config keys set on top of the bench's config (e.g. `metrics: { enabled: false }`). */
  config?: Record<string, unknown>;
  /** Extra environment for the gateway process (e.g. OTEL_EXPORTER_OTLP_ENDPOINT). */
  env?: Record<string, string>;
  /** Runs node under another program (e.g. valgrind), with a longer wait for the ready line. */
  launcher?: string[];
  timeoutMs?: number;
}

/** Starts `bin/gateway serve` on a fresh data dir and reads its ready line and first key. */
export async function startGateway({ provider, upstreamUrl, gatewayDir = REPO, nodeArgs = [], config: extra, env, launcher, timeoutMs }: GatewayLaunch): Promise<StartedGateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
  const { config: base, model } = gatewayConfig(provider, upstreamUrl);
  const config = { ...(base as Record<string, unknown>), ...extra };
  const configFile = path.join(dir, 'gateway.config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const dataDir = path.join(dir, 'data');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const { child, match } = await startChild(
      'gateway',
      [...nodeArgs, path.join(gatewayDir, 'bin/gateway'), '--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0'],
      /gateway listening on (http:\/\/\S+)/,
      { cwd: gatewayDir, env: env ? { ...process.env, ...env } : undefined, launcher, timeoutMs },
    );
    const key = child.lines.map((l) => l.match(/^ {2}(sk-gw-\S+)\s*$/)?.[1]).find(Boolean);
    if (!key) throw new Error(`gateway did not print an API key (is ${dataDir} fresh?)`);
    return { child, url: match[1], key, model, dataDir, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}
