import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useLayoutEffect, useReducer, useRef } from 'react';

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
 * subscription stays put and refs carry the current handler and state. Off without a TTY,
 * where Ink cannot enable raw mode.
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
  useInput(dispatch, { isActive: isRawModeSupported === true });
}
