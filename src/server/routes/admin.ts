import { timingSafeEqual } from 'node:crypto';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { H3Event } from 'h3';
import { adminRouter } from '../../admin/router.ts';
import type { AdminContext } from '../../admin/trpc.ts';
import { GatewayError } from '../../errors/index.ts';
import { credentialOf } from '../auth.ts';

export const ADMIN_ENDPOINT = '/admin/trpc';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** /admin/trpc/*: the admin procedures over HTTP, for the CLI and TUI; needs the server's admin token. */
export function adminHandler(adminToken: string | undefined, context: () => AdminContext) {
  return async (event: H3Event): Promise<Response> => {
    const token = credentialOf(event);
    if (!adminToken || !token || !sameSecret(token, adminToken)) {
      throw new GatewayError('authentication_error', 'Admin procedures need the admin token of this server.');
    }
    return fetchRequestHandler({ endpoint: ADMIN_ENDPOINT, req: event.req as Request, router: adminRouter, createContext: context });
  };
}
