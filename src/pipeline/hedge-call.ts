import { toGatewayError, type GatewayError } from '../errors/index.ts';
import type { CatalogModel } from '../providers/index.ts';

/** How a hedged pair of calls ended. */
export interface HedgeResult<T> {
  winner?: { model: CatalogModel; value: T };
  /** Calls that failed on their own (not the loser we aborted). */
  failed: Array<{ model: CatalogModel; error: GatewayError }>;
  /** A non-retryable failure: the request itself is wrong, the other call is abandoned. */
  fatal?: GatewayError;
  /** Calls started (1 when the first one settled before the delay). */
  started: number;
  /** Calls aborted because the other one won. */
  aborted: CatalogModel[];
}

/**
 * Calls `first`; if it has not answered after `delayMs`, calls `second` too. The first
 * answer wins and the other call is aborted (its value, if it still arrives, is discarded).
 * A failure of `first` before the delay ends the race at once: the caller moves on as usual.
 */
export function hedgeCall<T>(
  first: CatalogModel,
  second: CatalogModel,
  delayMs: number,
  call: (model: CatalogModel, signal: AbortSignal) => Promise<T>,
  discard: (value: T) => void,
): Promise<HedgeResult<T>> {
  return new Promise((resolve) => {
    const result: HedgeResult<T> = { failed: [], started: 0, aborted: [] };
    const running = new Map<AbortController, CatalogModel>();
    let finished = false;
    let timer: NodeJS.Timeout | undefined;

    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      for (const [controller, model] of running) {
        result.aborted.push(model);
        controller.abort();
      }
      resolve(result);
    };

    const start = (model: CatalogModel) => {
      const controller = new AbortController();
      running.set(controller, model);
      result.started += 1;
      call(model, controller.signal).then(
        (value) => {
          running.delete(controller);
          if (finished) return discard(value);
          result.winner = { model, value };
          finish();
        },
        (thrown: unknown) => {
          running.delete(controller);
          if (finished) return;
          const error = toGatewayError(thrown);
          if (!error.retryable) result.fatal = error;
          else result.failed.push({ model, error });
          if (result.fatal || running.size === 0) finish();
        },
      );
    };

    start(first);
    timer = setTimeout(() => {
      if (!finished) start(second);
    }, delayMs);
  });
}
