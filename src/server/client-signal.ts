import type { H3Event } from 'h3';
import { nodeOf } from './context.ts';

/** A signal that fires when the client goes away before the response is finished. */
export function clientSignal(event: H3Event): AbortSignal {
  const node = nodeOf(event);
  if (!node) return event.req.signal;
  const controller = new AbortController();
  const { res } = node;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
