import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { H3Event } from 'h3';
import { accountRouter, retryAfterMeta, type AccountContext } from '../../admin/index.ts';
import { authenticateSession } from '../session-auth.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

export const ACCOUNT_ENDPOINT = '/api/trpc';

/**
 * /api/trpc/*: the dashboard's procedures for one signed-in account (spec §5's session token,
 * as for the Media Library). The session is checked before tRPC runs, so a missing, expired
 * or API-key credential is the spec's 401 envelope the dashboard turns into its sign-in form.
 */
export function accountProcedureRoutes(deps: ServerDeps): RouteDef[] {
  const usage = deps.guards.usageSnapshot ? () => deps.guards.usageSnapshot!() : undefined;
  const handler = async (event: H3Event): Promise<Response> => {
    const { account, session } = await authenticateSession(event, deps);
    const context: AccountContext = {
      account,
      sessionExpiresAt: Math.floor(session.expiresAt / 1000),
      store: deps.store,
      clock: deps.clock,
      config: deps.config,
      registry: deps.registry,
      views: deps.guards.usageViews,
      usage,
    };
    return fetchRequestHandler({ endpoint: ACCOUNT_ENDPOINT, req: event.req as Request, router: accountRouter, createContext: () => context, responseMeta: retryAfterMeta });
  };
  return [
    { method: 'GET', path: `${ACCOUNT_ENDPOINT}/**`, handler },
    { method: 'POST', path: `${ACCOUNT_ENDPOINT}/**`, handler },
  ];
}
