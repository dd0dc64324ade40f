import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type LoadedConfig } from '../config/index.ts';
import { globalOptions } from './run-action.ts';

export interface CliContext extends LoadedConfig {
  dataDir: string;
  /** Directory that relative plugin paths in the config resolve against. */
  configDir: string;
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
  return { ...loaded, dataDir, configDir };
}
