import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type LoadedConfig } from '../config/index.ts';
import { globalOptions } from './run-action.ts';

export interface CliContext extends LoadedConfig {
  dataDir: string;
  /** Directory that relative plugin paths in the config resolve against. */
  configDir: string;
  /** The command running (`gateway keys create`): what a data dir lock it takes says holds it. */
  command: string;
}

/** `gateway keys create`: the names of the command and its parents, no arguments (they may hold a password). */
function commandName(cmd: Command): string {
  const names: string[] = [];
  for (let at: Command | null = cmd; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Loads the config (--config / GATEWAY_CONFIG / search) and resolves the data dir. */
export async function resolveContext(cmd: Command): Promise<CliContext> {
  const opts = globalOptions(cmd);
  const explicitPath = opts.config ?? process.env.GATEWAY_CONFIG;
  const loaded = await loadConfig({ explicitPath });
  const configDir = loaded.filepath ? path.dirname(loaded.filepath) : process.cwd();
  const fromFlag = opts.dataDir ?? process.env.GATEWAY_DATA_DIR;
  const dataDir = fromFlag
    ? path.resolve(fromFlag)
    : loaded.config.dataDir
      ? path.resolve(configDir, loaded.config.dataDir)
      : path.resolve('.gateway');
  return { ...loaded, dataDir, configDir, command: commandName(cmd) };
}

/** Where the records a command reads live, for a line saying none are there: the data dir, or the PostgreSQL store. */
export function recordsPlace(ctx: CliContext): string {
  if (ctx.config.store?.postgres) return 'the PostgreSQL store';
  return fs.existsSync(ctx.dataDir) ? ctx.dataDir : `${ctx.dataDir} (${NO_DATA_DIR})`;
}

const NO_DATA_DIR = 'no data dir there: run this where the gateway serves, or name its data dir with --data-dir';

/** ` in <data dir> (no data dir there: …)` when the file store's data dir does not exist, else nothing: for an empty listing's line. */
export function missingDataDirNote(ctx: CliContext): string {
  return ctx.config.store?.postgres || fs.existsSync(ctx.dataDir) ? '' : ` in ${ctx.dataDir} (${NO_DATA_DIR})`;
}

/** True when the file store's data dir is not there yet: a command that opens the store makes it. */
export function isNewDataDir(ctx: CliContext): boolean {
  return !ctx.config.store?.postgres && !fs.existsSync(ctx.dataDir);
}

/**
 * For a command that makes a record: when the file store's data dir is not there yet (the wrong
 * folder, or before the first serve), what to say once it is made, on stderr: a server on another
 * data dir will not know the record. Undefined when the data dir is there, or on PostgreSQL.
 */
export function newDataDirNote(ctx: CliContext, what: string): string | undefined {
  if (!isNewDataDir(ctx)) return undefined;
  return `gateway: note: there was no data dir at ${ctx.dataDir}, so this made one: a gateway serving another data dir will not know this ${what} (run this where it serves, or name its data dir with --data-dir)\n`;
}

/** The one line of a command that needs the server running on the data dir when none is; a data dir that is not there is said so (the wrong folder). */
export function noServerMessage(ctx: CliContext): string {
  return `no server is running on ${ctx.dataDir} (${fs.existsSync(ctx.dataDir) ? 'start one with gateway serve' : NO_DATA_DIR})`;
}

/** An empty accounts list: where it looked (the wrong directory is the usual reason) and what makes one. */
export function noAccountsLine(ctx: CliContext): string {
  return `No accounts in ${recordsPlace(ctx)}: \`gateway accounts create --email …\` makes one (the first \`gateway serve\` on an empty data dir makes local@localhost).`;
}

/**
 * Registers the wire formats the config's plugins bring (loaded, not set up), so a process that
 * serves nothing checks key scopes against every group the server has. Best effort: a plugin
 * that does not load leaves the built-in groups (the server, or the command, says why).
 */
export async function learnPluginFormats(ctx: CliContext): Promise<void> {
  try {
    const { registerPluginFormats } = await import('../providers/index.ts');
    await registerPluginFormats(ctx.config, ctx.configDir);
  } catch {
    // reported where it matters: by the server that loads the plugin, or by the command's own config load
  }
}
