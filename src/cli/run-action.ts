import type { Command } from 'commander';
import { ExitError, isExitError } from '../util/index.ts';
import { readableMessage } from '../util/index.ts';

/** An error of a CLI command: a message for the user and an exit code; printed without a stack trace. */
export class CliError extends ExitError {}

/** Prints one clear line for a failure and sets the exit code. */
export function fail(error: unknown): void {
  const raw = error instanceof Error ? error.message : String(error);
  const message = readableMessage(raw.trim()).split('\n')[0] || (error instanceof Error ? error.name : 'unknown error');
  process.stderr.write(`gateway: ${message}\n`);
  process.exitCode = isExitError(error) ? error.exitCode : 1;
}

/** Wraps a commander action so any failure ends as one line on stderr, never a stack trace. */
export function runAction<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      fail(error);
    }
  };
}

/** The global options of a (sub)command. */
export function globalOptions(cmd: Command): { config?: string; dataDir?: string } {
  return cmd.optsWithGlobals() as { config?: string; dataDir?: string };
}
