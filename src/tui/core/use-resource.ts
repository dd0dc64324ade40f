import { useEffect, useRef, useState } from 'react';
import { describeError } from './describe-error.ts';
import { useTui } from './tui-context.ts';
import type { TuiAdminApi } from './types.ts';

export interface Resource<T> {
  /** The last good data: kept through a failed reload so the screen does not go blank. */
  data: T | undefined;
  error: string | undefined;
  /** True until the first load settles. */
  loading: boolean;
}

export interface ResourceOptions {
  /** For costly loads: the auto-refresh timer reloads at most this often (`r` and actions always do). */
  autoEveryMs?: number;
  /** What the load depends on besides the refresh ticks (a filter, a page): a change reloads at once. */
  key?: string;
}

/**
 * Loads `load(api)` on mount and on every refresh tick. A failure goes to the status line
 * (labelled `label`) and is cleared there by the next good load; answers to superseded
 * loads are dropped.
 */
export function useResource<T>(label: string, load: (api: TuiAdminApi) => Promise<T>, options: ResourceOptions = {}): Resource<T> {
  const { api, tick, manualTick, report, clearStatus, now } = useTui();
  const [state, setState] = useState<Resource<T>>({ data: undefined, error: undefined, loading: true });
  const latest = useRef(load);
  latest.current = load;
  const seq = useRef(0);
  const startedAt = useRef<number | undefined>(undefined);
  const lastManualTick = useRef(manualTick);
  const lastKey = useRef(options.key);
  const mounted = useRef(true);
  const autoEveryMs = options.autoEveryMs;

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    const asked = manualTick !== lastManualTick.current || options.key !== lastKey.current;
    lastManualTick.current = manualTick;
    lastKey.current = options.key;
    if (!asked && autoEveryMs !== undefined && startedAt.current !== undefined && now() - startedAt.current < autoEveryMs) return;
    startedAt.current = now();
    // A newer load supersedes this one; a skipped tick does not, so its answer still lands.
    const mine = ++seq.current;
    latest
      .current(api)
      .then(
        (data) => {
          if (!mounted.current || mine !== seq.current) return;
          setState({ data, error: undefined, loading: false });
          clearStatus(label);
        },
        (error: unknown) => {
          if (!mounted.current || mine !== seq.current) return;
          const text = `${label}: ${describeError(error)}`;
          setState((s) => ({ data: s.data, error: text, loading: false }));
          report({ tone: 'error', text, source: label });
        },
      );
  }, [api, tick, manualTick, autoEveryMs, label, report, clearStatus, now, options.key]);

  return state;
}
