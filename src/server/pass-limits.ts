import type { H3Event } from 'h3';
import type { AuthContext, PassedLimits } from '../accounts/index.ts';
import { requestState } from './context.ts';
import type { ServerDeps } from './types.ts';

function keep(event: H3Event, passed: PassedLimits | undefined): PassedLimits | undefined {
  requestState(event).limits = passed;
  return passed;
}

/**
 * The key's rate-limit hit and concurrency slot, taken before a byte of the body is read
 * (issue 27: a key over its limits cannot make the gateway read and parse bodies). Kept on the
 * request: its admission takes them over (`AdmissionRequest.limits`), and the route wrapper
 * gives the slot back when the request ends without one (a refused body). At once with an
 * in-process limiter, else a promise; throws 429 as the admission would.
 */
export function passLimitsFirst(event: H3Event, deps: ServerDeps, auth: AuthContext, route: string): PassedLimits | undefined | Promise<PassedLimits | undefined> {
  const passing = deps.guards.passLimits?.({ auth, method: 'POST', route, calledPath: event.url.pathname, clientAddress: deps.clientAddress(event) });
  return passing instanceof Promise ? passing.then((passed) => keep(event, passed)) : keep(event, passing);
}
