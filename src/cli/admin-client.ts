import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTRPCClient, httpLink, unstable_localLink } from '@trpc/client';
import type { AdminClient, AdminRouter } from '../admin/index.ts';
import { adminRouter } from '../admin/index.ts';
import { configSource } from '../config/index.ts';
import { openCreditsUsage } from '../credits/index.ts';
import { ProviderRegistry } from '../providers/index.ts';
import { acquireLock, lockHolder, lockHolderName, readServerInfo } from '../store/index.ts';
import { openStore } from '../store/index.ts';
import { indexLedger } from '../usage/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import { createClock } from '../util/index.ts';
import { createLogger } from '../util/index.ts';
import type { CliContext } from './context.ts';
import { CliError } from './run-action.ts';

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
export async function connectAdmin(ctx: CliContext, options: AdminOptions & { waitMs?: number } = {}): Promise<AdminConnection> {
  // Run from the wrong directory, a change to an existing record would find nothing and leave an empty data dir behind.
  if (options.existing && !ctx.config.store?.postgres && !fs.existsSync(ctx.dataDir)) {
    throw new CliError(`no data dir at ${ctx.dataDir}: run this where the gateway serves, or name its data dir with --data-dir. Nothing was changed.`);
  }
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const server = readServerInfo(ctx.dataDir);
    if (server) {
      const url = server.adminUrl ?? server.url;
      const client = createTRPCClient<AdminRouter>({
        links: [httpLink({ url: `${url}/admin/trpc`, headers: { authorization: `Bearer ${server.adminToken}` }, fetch: answeredBy(ctx.dataDir, url, server.pid) })],
      });
      return { client, mode: 'server', close: async () => undefined };
    }
    const holder = lockHolder(ctx.dataDir);
    if (holder === undefined || Date.now() >= deadline) break;
    // The TUI without a server holds the data dir until it quits: waiting would only delay the refusal.
    if (lockHolderName(ctx.dataDir) === TUI) throw new CliError(tuiHoldsMessage(ctx.dataDir, holder));
    // Held by a server that is starting (server.json not yet written) or by another CLI: wait.
    await new Promise((r) => setTimeout(r, 50));
  }
  // A read of a file store that is not there makes none: the procedures read an empty one in a temporary dir.
  const scratch = options.readOnly && !ctx.config.store?.postgres && !fs.existsSync(ctx.dataDir) ? fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-no-data-dir-')) : undefined;
  const dataDir = scratch ?? ctx.dataDir;
  const removeScratch = () => scratch && fs.rmSync(scratch, { recursive: true, force: true });
  const lock = await acquireLock(dataDir, Math.max(0, deadline - Date.now()), ctx.command).catch((error: unknown) => {
    removeScratch();
    throw error;
  });
  try {
    const log = createLogger('warn');
    const store = await openStore({ dataDir, postgres: ctx.config.store?.postgres, poolSize: 2, warn: (message, fields) => log.warn(message, fields) });
    const clock = createClock();
    let registry: ProviderRegistry | undefined;
    const credits = openCreditsUsage({ store, dataDir });
    // Read once: the data dir's ledger (nothing else writes it while this process holds the data
    // dir), or on a shared store the database's (this data dir has none; the servers write there).
    let usage: Promise<UsageIndex> | undefined;
    const readUsage = async () => (ctx.config.store?.postgres ? (await credits.summarizeUsage(await store.accounts.list())).usage : indexLedger(dataDir));
    const client = createTRPCClient<AdminRouter>({
      links: [
        unstable_localLink({
          router: adminRouter,
          createContext: async () => ({
            store,
            clock,
            config: ctx.config,
            dataDir,
            registry: async () => (registry ??= await ProviderRegistry.create(ctx.config, { configDir: ctx.configDir, log, source: configSource(ctx.filepath) })),
            credits,
            usage: () => (usage ??= readUsage()),
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
        removeScratch();
      },
    };
  } catch (error) {
    lock.release();
    removeScratch();
    throw error;
  }
}

/** The name `gateway tui` writes in the lock file it holds. */
const TUI = 'gateway tui';

function tuiHoldsMessage(dataDir: string, pid: number): string {
  return `the data dir ${dataDir} is in use by process ${pid} (gateway tui, which works on it without a server and holds it until it quits): quit the TUI (q) and run this again; with \`gateway serve\` running, the TUI and every command go through the server together`;
}

/** What a command does with the data dir: on one that does not exist, `readOnly` reads an empty one (none made), `existing` fails. */
export interface AdminOptions {
  /** The command only reads. */
  readOnly?: boolean;
  /** The command changes a record that must be there already (set, revoke, cancel, remove). */
  existing?: boolean;
}

/**
 * fetch, with a server that does not answer said as such: it stopped (killed during this command),
 * or server.json names a pid that came again to another process after the server died. Not
 * "fetch failed": which server, and that the change may or may not have been made.
 */
function answeredBy(dataDir: string, url: string, pid: number): typeof fetch {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CliError(
        `the gateway serving ${dataDir} at ${url} (pid ${pid}, server.json) did not answer (${why}). If it stopped during this command, the change may or may not have been made: check (e.g. with ls) before running it again. If no gateway serves there any more, start one (gateway serve)`,
      );
    }
  };
}

/** Runs `fn` with an admin connection and always closes it. */
export async function withAdmin<T>(ctx: CliContext, fn: (client: AdminClient) => Promise<T>, options: AdminOptions = {}): Promise<T> {
  const connection = await connectAdmin(ctx, options);
  try {
    return await fn(connection.client);
  } finally {
    await connection.close();
  }
}
