import { useCallback } from 'react';
import { describeError } from './describe-error.ts';
import { useTui } from './tui-context.ts';
import type { TuiAdminApi } from './types.ts';

/**
 * Runs a mutation: `label…` while it runs, then its success line (or `label failed: why`)
 * in the status line, and a refresh so tables show the change. Never throws.
 */
export function useAdminAction(): <T>(label: string, fn: (api: TuiAdminApi) => Promise<T>, success: (result: T) => string) => Promise<T | undefined> {
  const { api, report, refresh } = useTui();
  return useCallback(
    async <T,>(label: string, fn: (api: TuiAdminApi) => Promise<T>, success: (result: T) => string): Promise<T | undefined> => {
      report({ tone: 'info', text: `${label}…` });
      try {
        const result = await fn(api);
        report({ tone: 'success', text: success(result) });
        refresh();
        return result;
      } catch (error) {
        report({ tone: 'error', text: `${label} failed: ${describeError(error)}` });
        return undefined;
      }
    },
    [api, report, refresh],
  );
}
