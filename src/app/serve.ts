import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { toNodeHandler, type H3 } from 'h3';
import { listen, type Listener } from 'listhen';
import type { GatewayConfig } from '../config/index.ts';
import { acquireLock, lockHolder, lockHolderName, readServerInfo, removeServerInfo, writeServerInfo, type DataDirLock } from '../store/index.ts';
import { describePostgresUrl, describeServiceUrl } from '../store/index.ts';
import { randomToken } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { bootstrapDataDir, hasUsableKey } from './bootstrap.ts';
import { createAdminApp } from '../server/index.ts';
import { acceptH2c, capConnections, type H2cSide } from '../server/index.ts';
import { createGateway, type Gateway } from './create-gateway.ts';

export interface ServeOptions {
  config: GatewayConfig;
  configDir: string;
  /** The config file (undefined: built-in defaults), named in config errors. */
  configFile?: string;
  dataDir: string;
  port: number;
  host: string;
  log: Logger;
  /** Where the ready line and the first key are printed. */
  print: (line: string) => void;
}

export interface RunningServer {
  url: string;
  gateway: Gateway;
  /** Stops accepting, lets in-flight requests finish (bounded), flushes the store. */
  stop(): Promise<void>;
}

/** Tracks in-flight requests (HTTP/1.1 and HTTP/2 alike) so shutdown can wait for them. */
function trackInFlight(...servers: EventEmitter[]): { count: () => number } {
  let active = 0;
  const onRequest = (_req: unknown, res: EventEmitter) => {
    active += 1;
    res.once('close', () => {
      active -= 1;
    });
  };
  for (const server of servers) server.on('request', onRequest);
  return { count: () => active };
}

/**
 * listhen wraps its server with http-shutdown, whose 'finish' listener throws (and kills the
 * process) when a response finishes after Node detached the socket, e.g. a 413 sent before a
 * chunked body was read. This module drains connections itself, so that listener goes.
 */
function detachHttpShutdown(server: Server): void {
  for (const listener of server.listeners('request')) {
    if (String(listener).includes('_isIdle')) server.off('request', listener as (...args: unknown[]) => void);
  }
}

/**
 * Which config file serves (a config found from a parent folder is not the one the user may
 * think of), and where the records and the rate limits live: the operator of several instances
 * must see that they share one database and one Redis, and that each instance's data dir still
 * holds its settlement outbox (answered charges on their way to the database: keep it on
 * persistent storage).
 */
function describeSources(options: ServeOptions): string[] {
  const postgres = options.config.store?.postgres;
  const limits = options.config.limits.store;
  return [
    ...(options.configFile ? [`config: ${path.resolve(options.configFile)}`] : []),
    postgres
      ? `store: PostgreSQL at ${describePostgresUrl(postgres)} (shared with every instance on it; data dir ${options.dataDir} holds this instance's settlement outbox: keep it on persistent storage)`
      : `store: files in ${options.dataDir} (this process only)`,
    limits === 'memory'
      ? 'limits: in memory (this process only)'
      : `limits: Redis at ${describeServiceUrl(limits.redis, 'the configured Redis URL')}, keys ${limits.prefix}* (shared with every instance on it; while it is unreachable: fail ${limits.onError})`,
  ];
}

/**
 * The providers that serve and how many models each: a provider left out of the config (the repo's and
 * `gateway init`'s openai and anthropic switch on only when their API key is in the environment) is seen
 * missing here at start, not from a model's 404 later.
 */
function describeProviders(gateway: Gateway): string {
  const { registry } = gateway.deps;
  const counts = new Map<string, number>();
  for (const model of registry.models) counts.set(model.provider.id, (counts.get(model.provider.id) ?? 0) + 1);
  const named = [...registry.providers.values()].map((provider) => {
    const count = counts.get(provider.id) ?? 0;
    const models = `${count} model${count === 1 ? '' : 's'}`;
    return `${provider.id} (${provider.acceptsAnyModel ? `${count > 0 ? `${models} and ` : ''}any model id` : models})`;
  });
  return `providers: ${named.length > 0 ? named.join(', ') : 'none'}`;
}

/** A bound HTTP server, the HTTP/2 connections on its port, and its in-flight count. */
interface Bound {
  server: Server;
  h2c: H2cSide;
  inFlight: { count: () => number };
}

/** How long a starting server waits for a CLI command that holds the data dir (the CLI waits as long for another). */
const CLI_HOLD_WAIT_MS = 10_000;

/**
 * The data dir's lock for a server. A one-shot CLI command (`gateway usage` from a cron job,
 * `gateway keys ls`, a `batches show --watch` look) holds it for a moment: the server waits for it
 * to let go rather than failing to start. Another server or the TUI holds it until stopped: refused at once.
 */
async function takeDataDir(dataDir: string): Promise<DataDirLock> {
  const deadline = Date.now() + CLI_HOLD_WAIT_MS;
  for (;;) {
    try {
      return await acquireLock(dataDir, 0);
    } catch (error) {
      const holder = lockHolderName(dataDir);
      const brief = holder !== undefined && holder !== 'gateway tui' && !readServerInfo(dataDir);
      if (!brief || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Starts the gateway on host:port (port 0 = a free port) and owns the data dir until stopped. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const lock = await takeDataDir(options.dataDir).catch((error: Error) => {
    const running = readServerInfo(options.dataDir);
    // A second `npm start` or `gateway serve` in the same project: say where the first one is.
    if (running) throw new Error(`cannot serve: ${error.message}, a gateway already serving at ${running.url}. Stop it, or give this one its own --data-dir`);
    // Held by another command (`gateway tui` without a server holds it until it quits).
    if (lockHolder(options.dataDir) !== undefined) throw new Error(`cannot serve: ${error.message}. Stop it, or give this one its own --data-dir`);
    throw new Error(`cannot serve: ${error.message}`);
  });
  const adminToken = `gwa_${randomToken(40)}`;
  const admin = options.config.server.admin;
  let gateway: Gateway | undefined;
  const listeners: Bound[] = [];
  try {
    gateway = await createGateway({ config: options.config, configDir: options.configDir, configFile: options.configFile, dataDir: options.dataDir, log: options.log, adminToken });
    const composed = gateway;
    listeners.push(await bind(gateway.app, options.host, options.port, { port: '--port', host: '--host' }, options.config.server));
    // A wildcard host is no address to connect to (Windows and macOS clients refuse http://0.0.0.0): print loopback.
    const url = loopbackUrlOf(listeners[0].server, options.host);
    let adminUrl = url;
    if (admin?.port !== undefined) {
      const adminHost = admin.host ?? '127.0.0.1';
      listeners.push(await bind(createAdminApp(gateway.deps), adminHost, admin.port, { port: 'server.admin.port', host: 'server.admin.host' }, options.config.server));
      adminUrl = urlOf(listeners[1].server, adminHost);
    }
    // Only now that the ports are ours: a start that cannot bind must not create a key nobody sees.
    const { store, clock } = gateway.deps;
    const firstKey = await bootstrapDataDir(store, clock);
    writeServerInfo(options.dataDir, { pid: process.pid, url, ...(adminUrl !== url ? { adminUrl } : {}), adminToken, startedAt: Date.now() });
    if (firstKey) {
      options.print(`Created account ${firstKey.email} and its first API key (shown once, store it now):`);
      options.print(`  ${firstKey.key}`);
    } else if (!(await hasUsableKey(store, clock))) {
      options.print('No usable API key in this data dir (none, or all revoked or expired): create one with `gateway keys create` (it works while the server runs).');
    }
    if (admin?.port !== undefined) options.print(`admin procedures listening on ${adminUrl} (not on the public listener)`);
    for (const line of describeSources(options)) options.print(line);
    options.print(describeProviders(composed));
    if (isWildcard(options.host)) options.print(describeWildcard(options.host, portOf(listeners[0].server)));
    options.print(`gateway listening on ${url}  (OpenAI base URL: ${url}/v1, Anthropic and Google base URL: ${url})`);

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        const deadline = Date.now() + options.config.server.shutdownGraceSeconds * 1000;
        await Promise.all(listeners.map((l) => drain(l, deadline)));
        await composed.close();
        removeServerInfo(options.dataDir);
        lock.release();
      })());
    return { url, gateway: composed, stop };
  } catch (error) {
    await Promise.all(listeners.map((l) => new Promise<void>((resolve) => l.server.close(() => resolve()))));
    await gateway?.close().catch(() => undefined);
    lock.release();
    throw error;
  }
}

/** Stops accepting and lets in-flight requests finish until `deadline`, then closes what is left. */
async function drain({ server, h2c, inFlight }: Bound, deadline: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  h2c.closeIdle();
  while (inFlight.count() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  server.closeAllConnections();
  h2c.closeAll();
  await closed;
}

/** Listens on host:port (0 = a free port); a port that cannot be had is one clear line, not a surprise port. */
async function bind(app: H3, host: string, port: number, setting: { port: string; host: string }, bounds: Pick<GatewayConfig['server'], 'maxConnections' | 'maxConcurrentStreams'>): Promise<Bound> {
  const { maxConnections, maxConcurrentStreams } = bounds;
  let server: Server;
  const cap = capConnections(maxConnections);
  const handler = cap.wrap(toNodeHandler(app));
  try {
    const listener: Listener = await listen(handler as ReturnType<typeof toNodeHandler>, {
      port: port === 0 ? { port: 0, random: true } : port,
      hostname: host,
      showURL: false,
      public: false,
      qr: false,
      open: false,
      clipboard: false,
      isProd: true,
      autoClose: false,
    } as Parameters<typeof listen>[1]);
    server = listener.server as Server;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(await explainBindFailure(host, port, reason, setting));
  }
  detachHttpShutdown(server);
  cap.attach(server);
  const h2c = acceptH2c(server, handler, { maxConcurrentStreams });
  return { server, h2c, inFlight: trackInFlight(server, h2c.server) };
}

/**
 * What to change when host:port cannot be had. listhen says "Unable to find an available port" whatever the cause, so
 * one plain listen asks the system: a host that is no address here (a typo, another machine's address) or a port
 * that needs privileges is not "another server using it".
 */
async function explainBindFailure(host: string, port: number, reason: string, setting: { port: string; host: string }): Promise<string> {
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
  if (code === 'EACCES') return `cannot listen on ${host}:${port}: this process may not use port ${port} (below 1024 needs privileges on most systems). Pick another with ${setting.port} (0 = any free port).`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EINVAL' || code?.startsWith('EAI_')) {
    return `cannot listen on ${host}:${port}: ${host} is not an address of this machine (${code}). Pick another with ${setting.host} (127.0.0.1, or 0.0.0.0 for every interface).`;
  }
  return `cannot listen on ${host}:${port} (${reason}): is another server using it? Pick another with ${setting.port} (0 = any free port).`;
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function urlOf(server: Server, host: string): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${portOf(server)}`;
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** The URL local tools reach a listener at: a wildcard host (0.0.0.0, ::) is reached over loopback. */
function loopbackUrlOf(server: Server, host: string): string {
  if (host === '0.0.0.0') return urlOf(server, '127.0.0.1');
  if (host === '::' || host === '[::]') return urlOf(server, '::1');
  return urlOf(server, host);
}

/** The machine's interfaces; none where it cannot list them (Android 10+ refuses: "uv_interface_addresses returned Unknown system error 13"). */
function listInterfaces(): ReturnType<typeof os.networkInterfaces> {
  try {
    return os.networkInterfaces();
  } catch {
    return {};
  }
}

/** The line that says a wildcard host listens on every interface, with a few addresses other machines can use. */
function describeWildcard(host: string, port: number): string {
  const v4Only = host === '0.0.0.0';
  const addresses = Object.values(listInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && !a.internal && (a.family === 'IPv4' || (!v4Only && !a.address.startsWith('fe80'))))
    .slice(0, 3)
    .map((a) => `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${port}`);
  const examples = addresses.length > 0 ? ` (${addresses.join(', ')})` : '';
  return `host ${host}: every interface of this machine listens; other machines use one of its addresses${examples}`;
}
