import { render } from 'ink-testing-library';
import { App } from '../../src/tui/app.tsx';
import type { ConnectionInfo, TuiAdminApi } from '../../src/tui/core/index.ts';
import { fakeAdminApi, type FakeAdminApi } from './fake-admin-api.ts';

export const KEYS = { left: '\u001b[D', right: '\u001b[C', up: '\u001b[A', down: '\u001b[B', enter: '\r', escape: '\u001b', backspace: '\u007f', ctrlC: '\u0003', tab: '\t', shiftTab: '\u001b[Z', pageDown: '\u001b[6~' } as const;

/** Lets Ink take in a keypress, React commit, and the fake API's promises settle. */
export const settle = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/** The admin TUI over a fake admin API, with helpers to type and to wait for text. */
export async function renderWithAdmin<A extends TuiAdminApi = FakeAdminApi>(api: A = fakeAdminApi() as TuiAdminApi as A, options: { connection?: ConnectionInfo; refreshMs?: number; size?: { columns: number; rows: number } } = {}) {
  const connection = options.connection ?? { mode: 'local', dataDir: '/srv/gateway/data' };
  const tree = <App api={api} connection={connection} refreshMs={options.refreshMs ?? 0} now={() => Date.UTC(2026, 0, 15)} />;
  const view = render(tree);
  if (options.size) {
    // ink-testing-library's terminal is 100 columns and has no rows (the TUI counts 24): give it a size, as a resize would.
    Object.defineProperty(view.stdout, 'columns', { value: options.size.columns, configurable: true });
    Object.defineProperty(view.stdout, 'rows', { value: options.size.rows, configurable: true });
    view.stdout.emit('resize');
    view.rerender(tree);
  }
  const frame = () => view.lastFrame() ?? '';
  /** Types keys one at a time, letting each settle (a person types slower than one tick). */
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      view.stdin.write(key);
      await settle();
    }
  };
  /** Waits until the frame contains `text` (or fails with the frame it saw). */
  const waitFor = async (text: string | RegExp, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = frame();
      if (typeof text === 'string' ? current.includes(text) : text.test(current)) return current;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)} in frame:\n${current}`);
      await settle(10);
    }
  };
  /**
   * Types `key` the moment a frame showing `text` is drawn, before React runs the new frame's
   * passive effects: the earliest a keystroke can arrive (a fast typist, a loaded machine).
   */
  const typeWhenShown = (text: string, key: string) => {
    const write = view.stdout.write;
    view.stdout.write = (drawn: string) => {
      write(drawn);
      if (!drawn.includes(text)) return;
      view.stdout.write = write;
      queueMicrotask(() => view.stdin.write(key));
    };
  };
  await settle();
  return { ...view, api, frame, press, waitFor, typeWhenShown };
}
