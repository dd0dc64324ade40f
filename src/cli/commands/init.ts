import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { displayPath, loadConfig, SEARCH_PLACES } from '../../config/index.ts';
import { print } from '../format-table.ts';
import { INIT_TEMPLATE } from '../init-template.ts';
import { CliError, globalOptions } from '../run-action.ts';

/** The config files already in `dir` that `serve` would find. */
function existingConfigs(dir: string): string[] {
  return SEARCH_PLACES.map((name) => path.join(dir, name)).filter((file) => fs.existsSync(file));
}

/**
 * `gateway init [--force]`: writes a commented gateway.config.ts (or the `--config` path) for a
 * new project, refuses to replace an existing config without --force, and checks that what it
 * wrote loads.
 */
export async function initCommand(cmd: Command, opts: { force?: boolean }): Promise<void> {
  const explicit = globalOptions(cmd).config;
  const target = path.resolve(explicit ?? 'gateway.config.ts');
  const existing = explicit ? (fs.existsSync(target) ? [target] : []) : existingConfigs(path.dirname(target));
  if (existing.length > 0 && !opts.force) {
    throw new CliError(`a config already exists: ${existing.map((f) => displayPath(f)).join(', ')} (use --force to write ${displayPath(target)} anyway)`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, INIT_TEMPLATE);
  // What was written must load: a broken template would be the worst first impression.
  await loadConfig({ explicitPath: target });
  const shadowed = existing.filter((f) => f !== target);
  print(`Wrote ${displayPath(target)}: mock is on; openai and anthropic switch on when OPENAI_API_KEY / ANTHROPIC_API_KEY are set.`);
  if (shadowed.length > 0) print(`It takes precedence over ${shadowed.map((f) => displayPath(f)).join(', ')}.`);
  print(`Next: ${invokedAs()} serve   (keep .gateway/, the data dir, out of version control)`);
}

/**
 * How the user ran the CLI, for the next command to type: `npx gateway` when npx started it
 * (npm sets npm_command=exec; in a project that installed the package, `gateway` is not on the
 * PATH), else `gateway`.
 */
function invokedAs(): string {
  return process.env.npm_command === 'exec' ? 'npx gateway' : 'gateway';
}
