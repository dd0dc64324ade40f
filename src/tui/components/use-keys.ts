import { useInput, useStdin, type Key } from 'ink';
import { createContext, createElement, useCallback, useContext, useLayoutEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';

type KeyListener = (input: string, key: Key) => void;

interface KeyHub {
  add(listener: KeyListener): () => void;
}

const KeyHubContext = createContext<KeyHub | null>(null);

/**
 * One stdin subscription for the whole UI, made at mount; `useKeys` handlers join and leave
 * it in layout effects, in the same commit that draws them. With Ink's own `useInput` a
 * component subscribes in a passive effect, after its frame is on screen: a key typed in
 * between (a first `y` right after a question appeared, on a loaded machine) was lost.
 */
export function KeyboardProvider({ children }: { children?: ReactNode }) {
  const { isRawModeSupported } = useStdin();
  const listeners = useRef(new Set<KeyListener>());
  const hub = useMemo<KeyHub>(
    () => ({
      add(listener) {
        listeners.current.add(listener);
        return () => listeners.current.delete(listener);
      },
    }),
    [],
  );
  useInput(
    (input, key) => {
      // Those present when the key came, in the order they joined (as Ink's own emitter does).
      for (const listener of [...listeners.current]) listener(input, key);
    },
    { isActive: isRawModeSupported === true },
  );
  return createElement(KeyHubContext.Provider, { value: hub }, children);
}

export interface UseKeysOptions {
  /** Off: the handler is not called (a dialog owns the keyboard). Default true. */
  active?: boolean;
  /**
   * Keys typed faster than the app reads them arrive as one chunk ("jj", "\ry"). When true
   * (the default) such a chunk is replayed one key at a time, each after the previous one's
   * commit; text fields pass false and take the chunk whole.
   */
  perKey?: boolean;
}

const replay = (ch: string, key: Key): Key => ({ ...key, return: ch === '\r' || ch === '\n', shift: /[A-Z]/.test(ch), delete: ch === '\u007f', backspace: ch === '\b' });

interface Typed {
  input: string;
  key: Key;
}

/**
 * `useInput` that always calls the latest `handler` and honours `active` from the last
 * commit. Ink re-subscribes a changed handler in a passive effect, so a key typed before
 * that effect ran would reach a stale closure (two quick ↓ moved the cursor once); here the
 * subscription stays put and refs carry the current handler and state. Under a
 * KeyboardProvider the handler is reachable from the commit that mounts it. Off without a
 * TTY, where Ink cannot enable raw mode.
 *
 * A key handled waits for its commit before the next one is: keys that come in the same tick
 * (one chunk Ink cut into several keys: Tab, ↓, text, Enter typed fast over a slow link) queue
 * and are handled one per commit, each seeing the state the one before left. Before, all of a
 * chunk's keys saw the same state and only the last one's change stayed.
 */
export function useKeys(handler: (input: string, key: Key) => void, options: UseKeysOptions = {}): void {
  const { isRawModeSupported } = useStdin();
  const active = options.active ?? true;
  const perKey = options.perKey ?? true;
  const latest = useRef({ handler, active, perKey });
  const queue = useRef<Typed[]>([]);
  /** A key was handled and its commit has not run yet. */
  const waiting = useRef(false);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useLayoutEffect(() => {
    latest.current = { handler, active, perKey };
    waiting.current = false;
    if (queue.current.length === 0) return;
    if (!active) {
      queue.current = [];
      return;
    }
    const next = queue.current.shift()!;
    waiting.current = true;
    handler(next.input, next.key);
    rerender();
  });
  const dispatch = useCallback((input: string, key: Key): void => {
    const current = latest.current;
    if (!current.active) return;
    const chars = [...input];
    const typed: Typed[] = !current.perKey || chars.length <= 1 || key.ctrl || key.meta ? [{ input, key }] : chars.map((ch) => ({ input: ch, key: replay(ch, key) }));
    if (waiting.current || queue.current.length > 0) {
      queue.current.push(...typed);
      return;
    }
    queue.current.push(...typed.slice(1));
    waiting.current = true;
    current.handler(typed[0].input, typed[0].key);
    rerender();
  }, []);
  const hub = useContext(KeyHubContext);
  useLayoutEffect(() => hub?.add(dispatch), [hub, dispatch]);
  // Outside a KeyboardProvider (a component rendered alone): Ink's own subscription.
  useInput(dispatch, { isActive: hub === null && isRawModeSupported === true });
}
