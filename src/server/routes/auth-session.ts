import type { H3Event } from 'h3';
import { z } from 'zod';
import { login, logout } from '../../accounts/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json } from '../send.ts';
import { authenticateSession, bearerOf } from '../session-auth.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

const LOGIN_ROUTE = '/api/auth/login';
const LOGOUT_ROUTE = '/api/auth/logout';

/**
 * An absent field says `is required` (a 400, spec §7), one of the wrong type `must be a string`
 * (422); a string too short or too long keeps zod's own message (the schema's error reads every issue).
 */
const text = (max: number) =>
  z.string({ error: (issue) => (issue.code !== 'invalid_type' ? undefined : issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') }).min(1).max(max);

const credentialsSchema = z.object({
  email: text(320),
  password: text(1024),
});

/** POST /api/auth/login: `{email, password}` → `{token, expires_at}`; 5/min per client address. */
function loginHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const headers = await deps.guards.admitAnonymous({ method: 'POST', route: LOGIN_ROUTE, clientAddress: deps.clientAddress(event) });
    for (const [k, v] of Object.entries(headers)) event.res.headers.set(k, v);
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'other')));
    const parsed = credentialsSchema.safeParse(body);
    if (!parsed.success) {
      const fields: Record<string, string> = {};
      for (const issue of parsed.error.issues) fields[issue.path.join('.') || 'body'] = issue.message;
      throw validationError(fields);
    }
    const session = await login(deps.store, deps.clock, parsed.data.email, parsed.data.password, deps.config.dashboard.sessionTtlSeconds * 1000);
    return json(event, { token: session.token, expires_at: session.expiresAt, token_type: 'Bearer' });
  };
}

/** POST /api/auth/logout with `Authorization: Bearer <session token>`: ends the session. */
function logoutHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    await authenticateSession(event, deps);
    const token = bearerOf(event);
    if (!token || !(await logout(deps.store, token))) throw new GatewayError('authentication_error', 'The session token is invalid or expired.');
    return json(event, { ok: true });
  };
}

/** The dashboard session routes. */
export function authSessionRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'POST', path: LOGIN_ROUTE, handler: loginHandler(deps) },
    { method: 'POST', path: LOGOUT_ROUTE, handler: logoutHandler(deps) },
  ];
}
