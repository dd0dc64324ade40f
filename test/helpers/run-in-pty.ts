import { execa } from 'execa';
import { BIN, REPO_ROOT } from './spawn-gateway.ts';

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * `gateway <args>` on a pseudo-terminal, through util-linux `script` (no native pty module
 * needed): type keys into it and wait for text it draws after the last keys typed.
 * `command` runs another gateway (e.g. `['npx', 'gateway']` in an installed project).
 */
export function runInPty(args: string[], options: { cwd?: string; command?: string[] } = {}) {
  const command = [...(options.command ?? [process.execPath, BIN]), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
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
    async waitFor(text: string, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!screen(mark).includes(text)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no '${text}' on the screen:\n${screen().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
