import './interactive-env.ts';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runTui } from '../../src/tui/run-tui.tsx';
import { fakeAdminApi } from './fake-admin-api.ts';
import { settle } from './render-with-admin.tsx';

/** A terminal's two ends, enough for Ink: a TTY stdin we type into and a stdout that keeps what was written. */
function fakeTerminal() {
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    data: null as string | null,
    setEncoding() {},
    setRawMode() {},
    resume() {},
    pause() {},
    ref() {},
    unref() {},
    read() {
      const data = stdin.data;
      stdin.data = null;
      return data;
    },
    type(data: string) {
      stdin.data = data;
      stdin.emit('readable');
    },
  });
  let written = '';
  const stdout = Object.assign(new EventEmitter(), { isTTY: true, columns: 100, rows: 30, write: (chunk: string) => ((written += chunk), true) });
  return { stdin, stdout, output: () => written };
}

const asStreams = (t: ReturnType<typeof fakeTerminal>) => ({ stdin: t.stdin as unknown as NodeJS.ReadStream, stdout: t.stdout as unknown as NodeJS.WriteStream, stderr: t.stdout as unknown as NodeJS.WriteStream, patchConsole: false });

describe('runTui', () => {
  it.each([
    ['q', 'q'],
    ['Ctrl-C', '\u0003'],
  ])('resolves to exit code 0 on %s and leaves the alternate screen', async (_name, key) => {
    const terminal = fakeTerminal();
    const done = runTui({ api: fakeAdminApi(), connection: { mode: 'local', dataDir: '/d' }, ...asStreams(terminal), alternateScreen: true });
    await settle(200);
    expect(terminal.output()).toContain('\u001b[?1049h');
    expect(terminal.output()).toContain('Overview');
    terminal.stdin.type(key);
    await expect(done).resolves.toBe(0);
    expect(terminal.output().endsWith('\u001b[?1049l')).toBe(true);
  });

  it('quits when its signal aborts (SIGTERM, SIGHUP)', async () => {
    const terminal = fakeTerminal();
    const quit = new AbortController();
    const done = runTui({ api: fakeAdminApi(), connection: { mode: 'local', dataDir: '/d' }, ...asStreams(terminal), alternateScreen: false, signal: quit.signal });
    await settle(100);
    quit.abort();
    await expect(done).resolves.toBe(0);
    expect(terminal.output()).not.toContain('\u001b[?1049h');
  });
});
