import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * `useInput` that always calls the latest `handler` and honours `active` from the last
 * commit. Ink re-subscribes a changed handler in a passive effect, so a key typed before
 * that effect ran would reach a stale closure (two quick ↓ moved the cursor once); here the
 * subscription stays put and refs carry the current handler and state. Off without a TTY,
 * where Ink cannot enable raw mode.
 */
export function useKeys(handler: (input: string, key: Key) => void, active = true): void {
  const { isRawModeSupported } = useStdin();
  const latest = useRef({ handler, active });
  useLayoutEffect(() => {
    latest.current = { handler, active };
  });
  const dispatch = useCallback((input: string, key: Key) => {
    if (latest.current.active) latest.current.handler(input, key);
  }, []);
  useInput(dispatch, { isActive: isRawModeSupported === true });
}
