import { timingSafeEqual } from 'node:crypto';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { H3Event } from 'h3';
import { adminRouter, retryAfterMeta } from '../../admin/index.ts';
import type { AdminContext } from '../../admin/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { isLoopbackRequest } from '../admin-access.ts';
import { credentialOf } from '../auth.ts';
import { withinCredentialBudget } from '../credential-budget.ts';
import type { ServerDeps } from '../types.ts';

export const ADMIN_ENDPOINT = '/admin/trpc';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * /admin/trpc/*: the admin procedures over HTTP, for the CLI and TUI; needs the server's admin
 * token. With `loopbackOnly`, a request from another machine gets the 404 of an unknown route:
 * the admin surface is not there for it (docs/admin.md).
 */
export function adminHandler(deps: Pick<ServerDeps, 'adminToken' | 'guards' | 'clientAddress'>, context: () => AdminContext, options: { loopbackOnly?: boolean } = {}) {
  const adminToken = deps.adminToken;
  return async (event: H3Event): Promise<Response> => {
    if (options.loopbackOnly && !isLoopbackRequest(event)) {
      throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
    }
    const token = credentialOf(event);
    // A wrong token counts against the address's failed-credential budget: the token cannot be guessed without bound.
    await withinCredentialBudget(event, deps, token !== undefined, () => {
      if (!adminToken || !token || !sameSecret(token, adminToken)) throw new GatewayError('authentication_error', 'Admin procedures need the admin token of this server.');
    });
    return fetchRequestHandler({ endpoint: ADMIN_ENDPOINT, req: event.req as Request, router: adminRouter, createContext: context, responseMeta: retryAfterMeta });
  };
}
