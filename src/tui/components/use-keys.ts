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

/**
 * `useInput` that always calls the latest `handler` and honours `active` from the last
 * commit. Ink re-subscribes a changed handler in a passive effect, so a key typed before
 * that effect ran would reach a stale closure (two quick ↓ moved the cursor once); here the
 * subscription stays put and refs carry the current handler and state. Under a
 * KeyboardProvider the handler is reachable from the commit that mounts it. Off without a
 * TTY, where Ink cannot enable raw mode.
 */
export function useKeys(handler: (input: string, key: Key) => void, options: UseKeysOptions = {}): void {
  const { isRawModeSupported } = useStdin();
  const active = options.active ?? true;
  const perKey = options.perKey ?? true;
  const latest = useRef({ handler, active, perKey });
  const queue = useRef<{ chars: string[]; key?: Key }>({ chars: [] });
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useLayoutEffect(() => {
    latest.current = { handler, active, perKey };
    // One queued key per commit, so each sees the state the previous one left.
    const { chars, key } = queue.current;
    if (chars.length === 0 || !key) return;
    if (!active) {
      queue.current = { chars: [] };
      return;
    }
    const ch = chars.shift()!;
    handler(ch, replay(ch, key));
    if (chars.length > 0) rerender();
  });
  const dispatch = useCallback((input: string, key: Key): void => {
    const current = latest.current;
    if (!current.active) return;
    const chars = [...input];
    if (!current.perKey || chars.length <= 1 || key.ctrl || key.meta) return current.handler(input, key);
    current.handler(chars[0], replay(chars[0], key));
    queue.current = { chars: chars.slice(1), key };
    rerender();
  }, []);
  const hub = useContext(KeyHubContext);
  useLayoutEffect(() => hub?.add(dispatch), [hub, dispatch]);
  // Outside a KeyboardProvider (a component rendered alone): Ink's own subscription.
  useInput(dispatch, { isActive: hub === null && isRawModeSupported === true });
}
