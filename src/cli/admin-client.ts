import { createTRPCClient, httpLink, unstable_localLink } from '@trpc/client';
import type { AdminClient, AdminRouter } from '../admin/index.ts';
import { adminRouter } from '../admin/index.ts';
import { configSource } from '../config/index.ts';
import { openCreditsUsage } from '../credits/index.ts';
import { ProviderRegistry } from '../providers/index.ts';
import { acquireLock, lockHolder, readServerInfo } from '../store/index.ts';
import { openStore } from '../store/index.ts';
import { indexLedger } from '../usage/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import { createClock } from '../util/index.ts';
import { createLogger } from '../util/index.ts';
import type { CliContext } from './context.ts';

export type { AdminClient };

export interface AdminConnection {
  client: AdminClient;
  /** `server` when a running server owns the data dir, `local` when this process holds the lock. */
  mode: 'server' | 'local';
  close(): Promise<void>;
}

/**
 * Reaches the admin procedures for a data dir. A running server owns its records, so the
 * CLI goes through it over HTTP; otherwise the CLI takes the data dir's lock and runs the
 * same procedures in-process. Either way no write is lost.
 */
export async function connectAdmin(ctx: CliContext, options: { waitMs?: number } = {}): Promise<AdminConnection> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const server = readServerInfo(ctx.dataDir);
    if (server) {
      const client = createTRPCClient<AdminRouter>({
        links: [httpLink({ url: `${server.adminUrl ?? server.url}/admin/trpc`, headers: { authorization: `Bearer ${server.adminToken}` } })],
      });
      return { client, mode: 'server', close: async () => undefined };
    }
    if (lockHolder(ctx.dataDir) === undefined || Date.now() >= deadline) break;
    // Held by a server that is starting (server.json not yet written) or by another CLI: wait.
    await new Promise((r) => setTimeout(r, 50));
  }
  const lock = await acquireLock(ctx.dataDir, Math.max(0, deadline - Date.now()), ctx.command);
  try {
    const log = createLogger('warn');
    const store = await openStore({ dataDir: ctx.dataDir, postgres: ctx.config.store?.postgres, poolSize: 2, warn: (message, fields) => log.warn(message, fields) });
    const clock = createClock();
    let registry: ProviderRegistry | undefined;
    const credits = openCreditsUsage({ store, dataDir: ctx.dataDir });
    // Nothing else writes the ledger while this process holds the data dir: read it once.
    let usage: Promise<UsageIndex> | undefined;
    const client = createTRPCClient<AdminRouter>({
      links: [
        unstable_localLink({
          router: adminRouter,
          createContext: async () => ({
            store,
            clock,
            config: ctx.config,
            dataDir: ctx.dataDir,
            registry: async () => (registry ??= await ProviderRegistry.create(ctx.config, { configDir: ctx.configDir, log, source: configSource(ctx.filepath) })),
            credits,
            usage: () => (usage ??= indexLedger(ctx.dataDir)),
          }),
        }),
      ],
    });
    return {
      client,
      mode: 'local',
      close: async () => {
        await store.close();
        await registry?.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Runs `fn` with an admin connection and always closes it. */
export async function withAdmin<T>(ctx: CliContext, fn: (client: AdminClient) => Promise<T>): Promise<T> {
  const connection = await connectAdmin(ctx);
  try {
    return await fn(connection.client);
  } finally {
    await connection.close();
  }
}
