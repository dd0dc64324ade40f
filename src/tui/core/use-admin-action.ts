import { useCallback } from 'react';
import { describeError, gatewayCodeOf } from './describe-error.ts';
import { useTui } from './tui-context.ts';
import type { TuiAdminApi } from './types.ts';

/** The gateway's codes for a refusal of what a form sent, which the form shows and stays open for. */
const REFUSALS = new Set(['validation_error', 'conflict']);

/**
 * Runs a mutation: `label…` while it runs, then its success line (or `label failed: why`)
 * in the status line, and a refresh so tables show the change. Never throws. A form passes
 * `onRefused`: a refusal of what was typed (`validation_error`, or `conflict`: an email taken)
 * goes to it too, its message's first line, so the form can stay open with the text typed.
 */
export function useAdminAction(): <T>(label: string, fn: (api: TuiAdminApi) => Promise<T>, success: (result: T) => string, onRefused?: (message: string) => void) => Promise<T | undefined> {
  const { api, report, refresh } = useTui();
  return useCallback(
    async <T,>(label: string, fn: (api: TuiAdminApi) => Promise<T>, success: (result: T) => string, onRefused?: (message: string) => void): Promise<T | undefined> => {
      report({ tone: 'info', text: `${label}…` });
      try {
        const result = await fn(api);
        report({ tone: 'success', text: success(result) });
        refresh();
        return result;
      } catch (error) {
        report({ tone: 'error', text: `${label} failed: ${describeError(error)}` });
        if (onRefused && REFUSALS.has(gatewayCodeOf(error) ?? '') && error instanceof Error) onRefused(error.message.split('\n')[0]);
        return undefined;
      }
    },
    [api, report, refresh],
  );
}
