import { useLayoutEffect } from 'react';
import { useTui } from './tui-context.ts';

/** Holds the keyboard for a screen's dialog while `captured` is true (set at commit, before the next key), and gives it back on unmount. */
export function useCapture(captured: boolean): void {
  const { capture } = useTui();
  useLayoutEffect(() => {
    capture(captured);
  }, [capture, captured]);
  useLayoutEffect(() => () => capture(false), [capture]);
}
