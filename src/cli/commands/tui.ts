import type { Command } from 'commander';
import { readServerInfo } from '../../store/index.ts';
import type { ConnectionInfo, TuiAdminApi } from '../../tui/index.ts';
import { connectAdmin, type AdminConnection } from '../admin-client.ts';
import { isNewDataDir, learnPluginFormats, resolveContext, type CliContext } from '../context.ts';
import { CliError } from '../run-action.ts';

export interface TuiOptions {
  /** Auto-refresh period in seconds when a server runs (0 = off). */
  refresh?: number;
}

/**
 * `gateway tui`: the operator's admin TUI. It needs a terminal (exit 2 without one), talks
 * only to the admin procedures over the same connection as the CLI, and holds that
 * connection (in local mode: the data dir lock) until the operator quits.
 */
export async function tuiCommand(cmd: Command, opts: TuiOptions): Promise<void> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    throw new CliError('tui needs an interactive terminal (stdin and stdout must be a TTY); in scripts use status (the live figures: fallbacks, open circuits, latest requests), accounts ls, keys ls, models ls, media ls, batches ls or usage, with --json', 2);
  }
  const ctx = await resolveContext(cmd);
  // Opening the store makes a missing data dir (the wrong folder): the overview says so.
  const newDataDir = isNewDataDir(ctx);
  // The key form checks endpoint groups here, before the server does: a plugin's format is one.
  await learnPluginFormats(ctx);
  let connection: AdminConnection;
  try {
    connection = await connectAdmin(ctx);
  } catch (error) {
    throw new CliError(`cannot reach the admin procedures for ${ctx.dataDir}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 1);
  }
  const quit = new AbortController();
  const onSignal = () => quit.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  try {
    // Ink reads CI/CONTINUOUS_INTEGRATION once, when it loads, and then draws only a final frame;
    // on a real terminal the operator asked for the interactive UI, so those do not apply.
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    // Ink and React load only here, so every other command stays fast.
    const [{ runTui }, { createAdminApi, withReconnect }] = await Promise.all([import('../../tui/index.ts'), import('../../tui/index.ts')]);
    const server = connection.mode === 'server' ? readServerInfo(ctx.dataDir) : undefined;
    const info: ConnectionInfo = { mode: connection.mode, url: server?.url, dataDir: ctx.dataDir };
    if (newDataDir) info.newDataDir = true;
    let api: TuiAdminApi = createAdminApi(connection.client);
    if (connection.mode === 'server') {
      let token = server?.adminToken;
      api = withReconnect(api, async () => {
        const next = await reconnectToServer(ctx, token);
        if (!next) return undefined;
        await connection.close();
        connection = next.connection;
        token = next.token;
        // The App reads the URL on its next render (the retried call's answer causes one).
        info.url = next.url;
        return createAdminApi(next.connection.client);
      });
    }
    process.exitCode = await runTui({ api, connection: info, refreshMs: opts.refresh === undefined ? undefined : opts.refresh * 1000, signal: quit.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    await connection.close();
  }
}

/** A connection to a server started since the one holding `oldToken` went away; undefined while none runs. */
async function reconnectToServer(ctx: CliContext, oldToken: string | undefined): Promise<{ connection: AdminConnection; url: string; token: string } | undefined> {
  const server = readServerInfo(ctx.dataDir);
  if (!server || server.adminToken === oldToken) return undefined;
  const connection = await connectAdmin(ctx, { waitMs: 0 });
  if (connection.mode !== 'server') {
    // The server stopped again in between and we took the lock: give it back.
    await connection.close();
    return undefined;
  }
  return { connection, url: server.url, token: server.adminToken };
}
