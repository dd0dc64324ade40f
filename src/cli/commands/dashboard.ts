import type { Command } from 'commander';
import { readServerInfo } from '../../store/index.ts';
import { noServerMessage, resolveContext } from '../context.ts';
import { print } from '../format-table.ts';
import { CliError } from '../run-action.ts';

/**
 * `gateway dashboard`: where the running server's web dashboard is, and a link that opens its
 * operator views. The admin token rides in the URL's fragment, which a browser never sends to a
 * server or puts in a Referer; the page moves it into the tab's storage and drops it from the URL.
 */
export async function dashboardCommand(cmd: Command): Promise<void> {
  const ctx = await resolveContext(cmd);
  const server = readServerInfo(ctx.dataDir);
  if (!server) throw new CliError(noServerMessage(ctx), 1);
  print(`dashboard: ${server.url}/  (sign in with an account's email and password)`);
  const adminUrl = server.adminUrl ?? server.url;
  print(`operator views (this machine only; the link holds this server's admin token, do not share it):`);
  print(`  ${adminUrl}/operator#admin=${server.adminToken}`);
}
