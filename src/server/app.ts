import { H3, type H3Event, type HTTPError } from 'h3';
import { GatewayError } from '../errors/index.ts';
import type { WireFormat } from '../ir/types.ts';
import { requestState, setResponseHeader } from './context.ts';
import { ClientClosedError } from './read-body.ts';
import { errorResponse } from './send.ts';
import { buildRoutes, type RouteDef } from './routes/index.ts';
import type { ServerDeps } from './types.ts';

type Handler = (event: H3Event) => unknown;

/** Wraps a handler: request id header, and every failure as the spec envelope in the route's format. */
function wrap(handler: Handler, format: WireFormat | undefined, deps: ServerDeps): Handler {
  return async (event) => {
    const state = requestState(event);
    setResponseHeader(event, 'x-request-id', state.ids.requestId);
    try {
      return await handler(event);
    } catch (error) {
      if (error instanceof ClientClosedError) {
        deps.log.debug('client closed the connection during the upload', { request_id: state.ids.requestId });
      } else if (!(error instanceof GatewayError)) {
        deps.log.error('unhandled error', { request_id: state.ids.requestId, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      }
      return errorResponse(error, event, format);
    }
  };
}

function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment === '**' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** The h3 app: every route of the gateway, the envelope for unknown routes and methods. */
export function createApp(deps: ServerDeps): H3 {
  const app = new H3({
    onError: (error: HTTPError, event: H3Event) => {
      const status = error.status ?? 500;
      const code = status === 400 ? 'bad_request' : status === 404 ? 'not_found' : status === 413 ? 'request_too_large' : 'internal_error';
      return errorResponse(new GatewayError(code, status >= 500 ? 'An unexpected error occurred.' : error.message), event);
    },
  });
  const routes: RouteDef[] = buildRoutes(deps);
  for (const route of routes) app.on(route.method, route.path, wrap(route.handler, route.format, deps));
  const known = routes.map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  app.all(
    '/**',
    wrap(
      (event) => {
        const path = event.url.pathname;
        const allowed = known.filter((r) => r.pattern.test(path)).map((r) => r.method);
        if (allowed.length > 0) {
          event.res.headers.set('allow', [...new Set(allowed)].join(', '));
          throw new GatewayError('method_not_allowed', `Method ${event.req.method} is not allowed on ${path}. Allowed: ${[...new Set(allowed)].join(', ')}.`);
        }
        throw new GatewayError('not_found', `No route for ${event.req.method} ${path}.`);
      },
      undefined,
      deps,
    ),
  );
  return app;
}
