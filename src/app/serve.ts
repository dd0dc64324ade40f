import type { Server } from 'node:http';
import { toNodeHandler } from 'h3';
import { listen, type Listener } from 'listhen';
import type { GatewayConfig } from '../config/index.ts';
import { acquireLock, removeServerInfo, writeServerInfo } from '../store/data-dir.ts';
import { randomToken } from '../util/secrets.ts';
import type { Logger } from '../util/logger.ts';
import { bootstrapDataDir } from './bootstrap.ts';
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

/** Tracks in-flight requests so shutdown can wait for them. */
function trackInFlight(server: Server): { count: () => number } {
  let active = 0;
  server.on('request', (_req, res) => {
    active += 1;
    res.once('close', () => {
      active -= 1;
    });
  });
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

/** Starts the gateway on host:port (port 0 = a free port) and owns the data dir until stopped. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const lock = await acquireLock(options.dataDir, 0).catch((error: Error) => {
    throw new Error(`cannot serve: ${error.message}`);
  });
  const adminToken = `gwa_${randomToken(40)}`;
  let gateway: Gateway;
  let listener: Listener;
  try {
    gateway = await createGateway({ config: options.config, configDir: options.configDir, configFile: options.configFile, dataDir: options.dataDir, log: options.log, adminToken });
    const firstKey = await bootstrapDataDir(gateway.deps.store, gateway.deps.clock);
    listener = await listen(toNodeHandler(gateway.app), {
      port: options.port === 0 ? { port: 0, random: true } : options.port,
      hostname: options.host,
      showURL: false,
      public: false,
      qr: false,
      open: false,
      clipboard: false,
      isProd: true,
      autoClose: false,
    } as Parameters<typeof listen>[1]);
    const server = listener.server as Server;
    detachHttpShutdown(server);
    const inFlight = trackInFlight(server);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    const url = `http://${host}:${port}`;
    writeServerInfo(options.dataDir, { pid: process.pid, url, adminToken, startedAt: Date.now() });
    if (firstKey) {
      options.print(`Created account ${firstKey.email} and its first API key (shown once, store it now):`);
      options.print(`  ${firstKey.key}`);
    }
    options.print(`gateway listening on ${url}  (OpenAI base URL: ${url}/v1, Anthropic base URL: ${url})`);

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = Date.now() + options.config.server.shutdownGraceSeconds * 1000;
        while (inFlight.count() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        server.closeAllConnections();
        await closed;
        await gateway.close();
        removeServerInfo(options.dataDir);
        lock.release();
      })());
    return { url, gateway, stop };
  } catch (error) {
    lock.release();
    throw error;
  }
}
