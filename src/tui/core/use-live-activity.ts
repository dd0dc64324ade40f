import { useEffect, useRef, useState } from 'react';
import { describeError } from './describe-error.ts';
import { useTui } from './tui-context.ts';
import type { ActivitySnapshot } from './types.ts';

/** How often the Overview asks the server for its live figures. */
export const LIVE_REFRESH_MS = 1000;

export interface LiveActivity {
  /** The last good figures (kept through a failed poll). */
  data: ActivitySnapshot | null | undefined;
  error: string | undefined;
}

/**
 * Polls the server's live figures every second while a server runs (its own timer: the tab's
 * auto-refresh is slower and pauses for dialogs; this one reads a small in-memory window).
 * Nothing is polled in local mode or when the gateway has no activity procedure.
 */
export function useLiveActivity(): LiveActivity {
  const { api, connection } = useTui();
  const [state, setState] = useState<LiveActivity>({ data: undefined, error: undefined });
  const inFlight = useRef(false);
  const enabled = connection.mode === 'server' && api.activity !== undefined;

  useEffect(() => {
    if (!enabled) return undefined;
    let mounted = true;
    const poll = () => {
      if (inFlight.current) return;
      inFlight.current = true;
      api
        .activity!()
        .then(
          (data) => mounted && setState({ data, error: undefined }),
          (error: unknown) => mounted && setState((s) => ({ data: s.data, error: describeError(error) })),
        )
        .finally(() => (inFlight.current = false));
    };
    poll();
    const timer = setInterval(poll, LIVE_REFRESH_MS);
    return () => {
      mounted = false;
      clearInterval(timer);
    };
  }, [api, enabled]);

  return state;
}
