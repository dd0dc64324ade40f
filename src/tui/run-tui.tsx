import { render } from 'ink';
import { ExitError } from '../util/index.ts';
import { App } from './app.tsx';
import type { ConnectionInfo, TuiAdminApi } from './core/index.ts';

export interface RunTuiOptions {
  api: TuiAdminApi;
  connection: ConnectionInfo;
  refreshMs?: number;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Draw on the terminal's alternate screen and restore the shell's screen on exit (default: when stdout is a TTY). */
  alternateScreen?: boolean;
  /** Aborting quits the TUI as `q` would (SIGTERM, SIGHUP). */
  signal?: AbortSignal;
  /** Route stray console output above the UI (default true; vitest's console cannot be patched). */
  patchConsole?: boolean;
}

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

/** Renders the TUI until the operator quits; resolves to the exit code, throws an ExitError (exit 1) if the UI itself crashes. */
export async function runTui(options: RunTuiOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const alternate = options.alternateScreen ?? stdout.isTTY === true;
  if (alternate) stdout.write(ENTER_ALT_SCREEN);
  try {
    const instance = render(<App api={options.api} connection={options.connection} refreshMs={options.refreshMs} />, {
      // Ink spreads these over its defaults: an explicit undefined would replace process.stdin.
      stdin: options.stdin ?? process.stdin,
      stdout,
      stderr: options.stderr ?? process.stderr,
      // The app handles Ctrl-C itself so quitting always takes the same path (and closes the connection).
      exitOnCtrlC: false,
      patchConsole: options.patchConsole ?? true,
    });
    const onAbort = () => instance.unmount();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await instance.waitUntilExit();
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
    return 0;
  } catch (error) {
    throw new ExitError(`the TUI stopped on an error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 1);
  } finally {
    if (alternate) stdout.write(LEAVE_ALT_SCREEN);
  }
}
