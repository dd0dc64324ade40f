import type { H3Event } from 'h3';
import { FastAbortController, watchOf, type AbortWatch } from '../util/index.ts';
import { nodeOf } from './context.ts';

/** Fires when the client goes away before the response is finished; its AbortSignal is made only if asked for. */
export function clientAbort(event: H3Event): AbortWatch {
  const node = nodeOf(event);
  if (!node) return watchOf(event.req.signal);
  const controller = new FastAbortController();
  const { req, res } = node;
  // `on`, not `once`: a response closes once, and `once` wraps every listener (a state object and a bound function per request).
  if (req.httpVersionMajor === 2) {
    // HTTP/2 (h2c): node's compat response says writableFinished also for a stream the client reset.
    res.on('close', () => {
      if (!res.writableEnded || req.aborted) controller.abort();
    });
    return controller;
  }
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller;
}
