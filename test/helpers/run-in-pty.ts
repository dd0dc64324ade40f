import { execa } from 'execa';
import { BIN, REPO_ROOT } from './spawn-gateway.ts';

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * `gateway <args>` on a pseudo-terminal, through util-linux `script` (no native pty module
 * needed): type keys into it and wait for text it draws after the last keys typed.
 * `command` runs another gateway (e.g. `['npx', 'gateway']` in an installed project);
 * `size` sets the terminal's columns and rows (default: what `script` gives, 80×24);
 * `context` adds what else a failed wait should show (the log of the server the TUI talks to).
 */
export function runInPty(args: string[], options: { cwd?: string; command?: string[]; size?: { columns: number; rows: number }; context?: () => string } = {}) {
  const quoted = [...(options.command ?? [process.execPath, BIN]), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const command = options.size ? `stty cols ${options.size.columns} rows ${options.size.rows}; exec ${quoted}` : quoted;
  const child = execa('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd ?? REPO_ROOT, reject: false, stdin: 'pipe', env: { TERM: 'xterm-256color' }, timeout: 60_000 });
  let out = '';
  let mark = 0;
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const screen = (from = 0) => out.slice(from).replace(ANSI, '');
  return {
    child,
    screen,
    type(keys: string) {
      mark = out.length;
      child.stdin?.write(keys);
    },
    /**
     * Waits for `text` in what is drawn after the last keys typed. Ink writes a frame only when
     * it differs from the last one, so keys that change nothing on screen (an `r` whose reload
     * brings the same rows) draw nothing after them: wait for what the keys change.
     * Generous: a loaded machine (the whole suite in parallel) has been seen to take over 15 s for one frame.
     */
    async waitFor(text: string | RegExp, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const found = (s: string) => (typeof text === 'string' ? s.includes(text) : text.test(s));
      while (!found(screen(mark))) {
        if (Date.now() > deadline || child.exitCode !== null) {
          const before = found(out.slice(0, mark).replace(ANSI, ''))
            ? ' (it was drawn BEFORE the last keys typed: they drew no new frame with it)'
            : '';
          const context = options.context ? `\n--- context:\n${options.context().slice(-3000)}` : '';
          throw new Error(`no '${text}' drawn after the last keys typed, in ${Date.now() - deadline + timeoutMs} ms${before}; the output so far ends:\n${screen().slice(-2000)}${context}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
