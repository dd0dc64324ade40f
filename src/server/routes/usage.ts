import type { H3Event } from 'h3';
import { AccountGuards } from '../../accounts/account-guards.ts';
import { GatewayError } from '../../errors/index.ts';
import { resolveLimit } from '../../limits/index.ts';
import { activityRange, buildActivityView, buildCreditsView, buildKeyView } from '../../usage/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { clientAddress } from '../context.ts';
import { json } from '../send.ts';
import type { AuthContext, ServerDeps } from '../types.ts';
import type { RouteDef } from './index.ts';

type UsageHandler = (event: H3Event, auth: AuthContext, guards: AccountGuards) => unknown;

/**
 * An API-key route that is rate limited like any other non-exempt endpoint (spec §8.1:
 * only health, model list, batch and collection management are exempt).
 */
function limited(deps: ServerDeps, route: string, handler: UsageHandler) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const guards = deps.guards;
    if (!(guards instanceof AccountGuards)) throw new GatewayError('service_unavailable', 'Usage accounting is not enabled on this server.');
    const admission = await guards.admit({ auth, method: 'GET', route, clientAddress: clientAddress(event, deps.config.server.trustProxy) });
    for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
    try {
      return handler(event, auth, guards);
    } finally {
      await admission.settle(null);
    }
  };
}

function credits(deps: ServerDeps): UsageHandler {
  return (event, { account }, guards) => {
    const current = deps.store.accounts.get(account.id) ?? account;
    return json(event, buildCreditsView(current, guards.usage, guards.credits.reserved(account.id)));
  };
}

function key(deps: ServerDeps): UsageHandler {
  return (event, { account, key }, guards) => {
    const current = deps.store.accounts.get(account.id) ?? account;
    const limit = resolveLimit(
      { method: 'POST', path: '/v1/chat/completions', ip: '', apiKey: { id: key.id, rpm: key.rpm }, account: { id: current.id, tier: current.tier, rpm: current.rpm } },
      guards.limits,
    );
    return json(event, buildKeyView({
      account: current,
      key,
      usage: guards.usage,
      now: deps.clock.now(),
      rateLimit: limit ? { requests: limit.limit, intervalMs: limit.windowMs, source: limit.source } : null,
    }));
  };
}

function activity(deps: ServerDeps): UsageHandler {
  return (event, { account }, guards) => {
    const range: { from: string; to: string; keyId?: string } = activityRange(deps.clock.now());
    const date = event.url.searchParams.get('date');
    if (date !== null) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)) || date < range.from || date > range.to) {
        throw new GatewayError('bad_request', `'date' must be a UTC day (YYYY-MM-DD) between ${range.from} and ${range.to}.`, { details: { param: 'date' } });
      }
      range.from = date;
      range.to = date;
    }
    const keyHash = event.url.searchParams.get('api_key_hash');
    if (keyHash !== null) {
      const found = /^[0-9a-f]{64}$/i.test(keyHash) ? deps.store.keys.findByHash(keyHash.toLowerCase()) : undefined;
      if (!found || found.accountId !== account.id) throw new GatewayError('not_found', 'No API key of this account has that hash.', { details: { param: 'api_key_hash' } });
      range.keyId = found.id;
    }
    return json(event, buildActivityView(guards.usage, account.id, range));
  };
}

/** GET /v1/credits, /v1/key, /v1/activity: OpenRouter-style usage (wire-formats §7), amounts in USD and credits. */
export function usageRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'GET', path: '/v1/credits', handler: limited(deps, '/v1/credits', credits(deps)) },
    { method: 'GET', path: '/v1/key', handler: limited(deps, '/v1/key', key(deps)) },
    { method: 'GET', path: '/v1/activity', handler: limited(deps, '/v1/activity', activity(deps)) },
  ];
}
