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

/**
 * Loads `load(api)` on mount and on every refresh tick. A failure goes to the status line
 * (labelled `label`) and is cleared there by the next good load; answers to superseded
 * loads are dropped.
 */
export function useResource<T>(label: string, load: (api: TuiAdminApi) => Promise<T>): Resource<T> {
  const { api, tick, report, clearStatus } = useTui();
  const [state, setState] = useState<Resource<T>>({ data: undefined, error: undefined, loading: true });
  const latest = useRef(load);
  latest.current = load;
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    let live = true;
    latest
      .current(api)
      .then(
        (data) => {
          if (!live || mine !== seq.current) return;
          setState({ data, error: undefined, loading: false });
          clearStatus(label);
        },
        (error: unknown) => {
          if (!live || mine !== seq.current) return;
          const text = `${label}: ${describeError(error)}`;
          setState((s) => ({ data: s.data, error: text, loading: false }));
          report({ tone: 'error', text, source: label });
        },
      );
    return () => {
      live = false;
    };
  }, [api, tick, label, report, clearStatus]);

  return state;
}
