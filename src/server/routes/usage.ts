import type { H3Event } from 'h3';
import type { ActivityRange, AuthContext, UsageViews } from '../../accounts/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { activityRange } from '../../usage/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

type UsageHandler = (event: H3Event, auth: AuthContext, views: UsageViews) => unknown;

/**
 * An API-key route that is rate limited like any other non-exempt endpoint (spec §8.1:
 * only health, model list, batch and collection management are exempt).
 */
function limited(deps: ServerDeps, route: string, handler: UsageHandler) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const views = deps.guards.usageViews;
    if (!views) throw new GatewayError('service_unavailable', 'Usage accounting is not enabled on this server.');
    const admission = await deps.guards.admit({ auth, method: 'GET', route, clientAddress: deps.clientAddress(event) });
    for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
    try {
      return await handler(event, auth, views);
    } finally {
      await admission.settle(null);
    }
  };
}

function credits(): UsageHandler {
  return async (event, { account }, views) => json(event, await views.credits(account));
}

function key(): UsageHandler {
  return async (event, auth, views) => json(event, await views.key(auth));
}

function activity(deps: ServerDeps): UsageHandler {
  return async (event, { account }, views) => {
    const range: ActivityRange = activityRange(deps.clock.now());
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
      const found = /^[0-9a-f]{64}$/i.test(keyHash) ? deps.store.cache.keyByHash(keyHash.toLowerCase()) : undefined;
      if (!found || found.accountId !== account.id) throw new GatewayError('not_found', 'No API key of this account has that hash.', { details: { param: 'api_key_hash' } });
      range.keyId = found.id;
    }
    return json(event, await views.activity(account.id, range));
  };
}

/** The longest id looked for (a request id is `req_` and 24 characters; a client's own X-Request-ID up to 128). */
const MAX_GENERATION_ID = 256;

/** OpenRouter's generation stats: one request of the calling key, by its id (`?id=`: the answer's own id, or its `X-Request-ID`). */
function generation(): UsageHandler {
  return async (event, auth, views) => {
    const id = event.url.searchParams.get('id');
    if (id === null || id === '' || id.length > MAX_GENERATION_ID) {
      throw new GatewayError('bad_request', "'id' must be the id of an answer (its own id, or its X-Request-ID header).", { details: { param: 'id' } });
    }
    const found = await views.generation(auth, id);
    if (!found) {
      throw new GatewayError(
        'not_found',
        `No request of this API key has the id '${id}' among its account's 10,000 latest. Send the answer's own id (chatcmpl-…, msg_…, resp_…) or its X-Request-ID header.`,
        { details: { param: 'id' } },
      );
    }
    return json(event, found);
  };
}

/** GET /v1/credits, /v1/key, /v1/activity, /v1/generation: OpenRouter-style usage (wire-formats §7), amounts in USD and credits. */
export function usageRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'GET', path: '/v1/credits', handler: limited(deps, '/v1/credits', credits()) },
    { method: 'GET', path: '/v1/key', handler: limited(deps, '/v1/key', key()) },
    { method: 'GET', path: '/v1/activity', handler: limited(deps, '/v1/activity', activity(deps)) },
    { method: 'GET', path: '/v1/generation', handler: limited(deps, '/v1/generation', generation()) },
  ];
}
