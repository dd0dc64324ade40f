import path from 'node:path';
import { cosmiconfig, type Loader } from 'cosmiconfig';
import { createJiti } from 'jiti';

import { configSchema, type GatewayConfig } from './schema.ts';

/** A config problem, reported as one clear line (which file, which field, what is wrong). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** The file the config came from, or undefined for the built-in defaults. */
  filepath?: string;
}

const MODULE = 'gateway';

const SEARCH_PLACES = [
  'gateway.config.ts',
  'gateway.config.mts',
  'gateway.config.js',
  'gateway.config.mjs',
  'gateway.config.json',
  'gateway.config.yaml',
  'gateway.config.yml',
  '.gatewayrc',
  '.gatewayrc.json',
  '.gatewayrc.yaml',
  '.gatewayrc.yml',
  '.gatewayrc.js',
  '.gatewayrc.mjs',
  '.gatewayrc.ts',
];

// cosmiconfig 9's own .ts loader breaks on configs that import other files (stack notes): use jiti.
const loadWithJiti: Loader = async (filepath) => {
  const jiti = createJiti(import.meta.url, { interopDefault: true, moduleCache: false });
  return jiti.import(filepath, { default: true });
};

/** Finds, loads and validates the gateway config (from `explicitPath`, or searching up from `cwd`). */
export async function loadConfig(options: { explicitPath?: string; cwd?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const explorer = cosmiconfig(MODULE, {
    searchPlaces: SEARCH_PLACES,
    searchStrategy: 'project',
    loaders: { '.ts': loadWithJiti, '.mts': loadWithJiti, '.js': loadWithJiti, '.mjs': loadWithJiti },
  });
  let result: { config: unknown; filepath: string } | null;
  try {
    result = options.explicitPath ? await explorer.load(path.resolve(cwd, options.explicitPath)) : await explorer.search(cwd);
  } catch (error) {
    const file = options.explicitPath ? path.resolve(cwd, options.explicitPath) : 'the config file';
    const reason = (error as { code?: string })?.code === 'ENOENT' ? 'file not found' : firstLine(error);
    throw new ConfigError(`Cannot load ${file}: ${reason}`);
  }
  const raw = result?.config ?? {};
  const where = result?.filepath ?? '(built-in defaults)';
  return { config: parseConfig(raw, where), filepath: result?.filepath };
}

/** Validates a raw config object; `where` names its source in error messages. */
export function parseConfig(raw: unknown, where = 'config'): GatewayConfig {
  const parsed = configSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    throw new ConfigError(`Invalid config in ${where}: ${field}: ${issue.message}`);
  }
  return parsed.data;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0];
}

