import type { H3Event } from 'h3';
import { GatewayError } from '../errors/index.ts';
import type { AccountRecord, SessionRecord } from '../store/index.ts';
import { sha256 } from '../util/index.ts';
import type { ServerDeps } from './types.ts';
import { withinCredentialBudget } from './credential-budget.ts';

/** Who is calling with a dashboard session token (spec §5: Media Library surface). */
export interface SessionContext {
  account: AccountRecord;
  session: SessionRecord;
}

/** The bearer token of a request, if any (sessions are sent only as `Authorization: Bearer`). */
export function bearerOf(event: H3Event): string | undefined {
  const header = event.req.headers.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return match?.[1];
}

/**
 * Authenticates a dashboard session token (spec §5). API keys are refused with 401 so
 * a leaked inference key never opens the Media Library; a suspended account gets 403. A wrong
 * token counts against the client address's failed-credential budget (withinCredentialBudget).
 */
export function authenticateSession(event: H3Event, deps: Pick<ServerDeps, 'store' | 'clock' | 'guards' | 'clientAddress'>): Promise<SessionContext> {
  const token = bearerOf(event);
  return withinCredentialBudget(event, deps, token !== undefined && !token.startsWith('sk-'), () => sessionOf(event, deps, token));
}

function sessionOf(event: H3Event, deps: Pick<ServerDeps, 'store' | 'clock'>, token: string | undefined): SessionContext {
  // An API key, as Bearer or in X-API-Key (both ways the spec allows elsewhere), is told so.
  if (token?.startsWith('sk-') || (!token && event.req.headers.has('x-api-key'))) {
    throw new GatewayError('authentication_error', 'This endpoint needs a dashboard session token; API keys are not accepted. Log in with POST /api/auth/login.');
  }
  if (!token) {
    throw new GatewayError('authentication_error', 'No session token provided. Log in with POST /api/auth/login and send "Authorization: Bearer <token>".');
  }
  const session = deps.store.cache.sessionByHash(sha256(token));
  if (!session || session.expiresAt <= deps.clock.now()) {
    throw new GatewayError('authentication_error', 'The session token is invalid or expired; log in again.');
  }
  const account = deps.store.cache.account(session.accountId);
  if (!account) throw new GatewayError('authentication_error', 'The session token is invalid or expired; log in again.');
  if (account.suspended) throw new GatewayError('account_suspended', 'The account is suspended.');
  return { account, session };
}
