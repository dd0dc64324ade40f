import fs from 'node:fs';
import path from 'node:path';
import { cosmiconfig, type Loader } from 'cosmiconfig';

import { issuesOf } from '../util/index.ts';
import { explainConfigIssues } from './explain-issues.ts';
import { describeSyntaxError } from './describe-syntax-error.ts';
import { importUserDefault } from './import-user-module.ts';
import { configSchema, type GatewayConfig, type GatewayConfigInput } from './schema.ts';

/** A config problem, reported as one clear line (which file, which field, what is wrong). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** The file the config came from, or undefined when none was found (built-in defaults). */
  filepath?: string;
}

/** What runs when no config file is found: the offline `mock` provider, so a first `serve` answers. */
export const DEFAULT_CONFIG: GatewayConfigInput = { providers: { mock: { plugin: 'mock' } } };

const MODULE = 'gateway';

export const SEARCH_PLACES = [
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

// cosmiconfig 9's own .ts loader breaks on configs that import other files (stack notes): use jiti,
// which also hands the config this gateway's own `gateway` module wherever the file lives.
const loadWithJiti: Loader = (filepath) => importUserDefault(filepath);

/** `gateway.config.ts` for a file under the working directory, else the absolute path. */
export function displayPath(file: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** How errors name the config file: its display path, or `(built-in defaults)` when there is none. */
export function configSource(configFile: string | undefined): string {
  return configFile ? displayPath(configFile) : '(built-in defaults)';
}

/** Finds, loads and validates the gateway config (from `explicitPath`, or searching up from `cwd`). */
export async function loadConfig(options: { explicitPath?: string; cwd?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const explorer = cosmiconfig(MODULE, {
    searchPlaces: SEARCH_PLACES,
    searchStrategy: 'project',
    loaders: { '.ts': loadWithJiti, '.mts': loadWithJiti, '.js': loadWithJiti, '.mjs': loadWithJiti },
  });
  const explicit = options.explicitPath ? path.resolve(cwd, options.explicitPath) : undefined;
  let result: { config: unknown; filepath: string } | null;
  try {
    result = explicit ? await explorer.load(explicit) : await explorer.search(cwd);
  } catch (error) {
    if (explicit && (error as { code?: string })?.code === 'ENOENT') throw new ConfigError(`${displayPath(explicit, cwd)}: file not found`);
    const file = explicit ?? ((error as { filepath?: string })?.filepath || undefined);
    throw new ConfigError(describeLoadError(error, file, cwd));
  }
  if (!result) return { config: parseConfig(DEFAULT_CONFIG, '(built-in defaults)') };
  return { config: parseConfig(result.config ?? {}, displayPath(result.filepath, cwd)), filepath: result.filepath };
}

/** `file:line:column: message` for a syntax error, else `file: message` (first line). */
function describeLoadError(error: unknown, file: string | undefined, cwd: string): string {
  const syntax = describeSyntaxError(error, file, (f) => fs.readFileSync(f, 'utf8'));
  if (syntax) return `${displayPath(syntax.file, cwd)}:${syntax.line}:${syntax.column}: ${syntax.message}`;
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n').find((line) => line.trim() !== '') ?? message;
  return `${file ? displayPath(file, cwd) : 'the config file'}: ${first.trim()}`;
}

/** Validates a raw config object; `where` names its source in error messages. */
export function parseConfig(raw: unknown, where = 'config'): GatewayConfig {
  const parsed = configSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ConfigError(`${where}: ${explainConfigIssues(configSchema, issuesOf(parsed.error) ?? [])}`);
  }
  return parsed.data;
}
