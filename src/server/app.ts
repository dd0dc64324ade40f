import { H3, type H3Event, type HTTPError } from 'h3';
import { GatewayError, toGatewayError, isGatewayError } from '../errors/index.ts';
import { formatOfClient, getFormat, isCloudPath, listFormats, missingFormatHint, type CloudFace, type FormatDefinition } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { RequestRecord } from '../observability/index.ts';
import { flushHead, requestHeader, requestState, setResponseHeader, type RequestState } from './context.ts';
import { createCors, originOf, type Cors } from './cors.ts';
import { dataDirUnwritable, databaseUnavailable } from '../store/index.ts';
import { apiFormatOfRoute, isDashboardRoute, isInferenceRoute, isInternalRoute, operationOfRoute, statusOfResult } from './observe-route.ts';
import { createClientErrorWarner, type ClientErrorWarning } from './warn-client-error.ts';
import { ClientClosedError } from './body-errors.ts';
import { collapseSlashes, isNoRoute, noRoute, suggestBaseUrl } from './hint-base-url.ts';
import { errorResponse, errorStatus } from './send.ts';
import { adminRoutes, buildRoutes, type RouteDef } from './routes/index.ts';
import { acceptsPage, createDashboard, dashboardRoutes, isApiPath, isFilePath, type Dashboard } from './routes/dashboard.ts';
import type { ServerDeps } from './types.ts';

type Handler = (event: H3Event) => unknown;

/**
 * Wraps a handler: request id header, every failure as the spec envelope in the route's
 * format, and one observability record per request (`route` is the pattern, a bounded label).
 */
function wrap(handler: Handler, format: WireFormat | undefined, deps: ServerDeps, route: string, warn?: (warning: ClientErrorWarning) => void, cloud?: CloudFace): Handler {
  const routeIdHeader = cloud?.requestIdHeader;
  const awsErrors = cloud?.awsErrors === true;
  const observer = deps.observer;
  const warnClient = isInferenceRoute(route) ? warn : undefined;
  const operation = operationOfRoute(route);
  const apiFormat = apiFormatOfRoute(route, format);
  const internal = isInternalRoute(route, deps.config.metrics.path) || (isDashboardRoute(route) && 'dashboard');
  const requestIdHeader = format === undefined ? undefined : getFormat(format).requestIdHeader;
  // What the handler's result or failure ends with: the record ended, the slot given back, an error as the envelope.
  const failed = (event: H3Event, state: RequestState, record: RequestRecord, thrown: unknown): unknown => {
    state.limits?.release();
    // The shared database away (a restart, a partition) is a 503 the client may retry, not a bug.
    const away = isGatewayError(thrown) ? undefined : databaseUnavailable(thrown);
    // A full or read-only data dir under a record this request writes: 503 naming storage, not a bug.
    const unwritable = away || isGatewayError(thrown) ? undefined : dataDirUnwritable(thrown);
    if (thrown instanceof ClientClosedError) {
      deps.log.debug('client closed the connection during the upload', { request_id: state.ids.requestId });
    } else if (away) {
      deps.store.database?.failed(thrown);
      deps.log.warn('store: the database did not answer; 503', { request_id: state.ids.requestId, route, error: String(thrown) });
    } else if (unwritable) {
      deps.guards.storage?.failed(thrown, `a record of ${route}`);
      deps.log.warn('storage: a record could not be written; 503', { request_id: state.ids.requestId, route, error: String(thrown) });
    } else if (!isGatewayError(thrown)) {
      deps.log.error('unhandled error', { request_id: state.ids.requestId, error: thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown) });
    }
    const error = away ?? unwritable ?? toGatewayError(thrown);
    if (warnClient && error.status >= 400 && error.status < 500) warnClient({ requestId: state.ids.requestId, route, keyId: record.keyId, error });
    observer.fail(record, error);
    // The status the client gets (a Gemini client's 400 for a 422), as the request log and metrics record it.
    observer.end(record, errorStatus(error, event, format));
    return errorResponse(error, event, format, awsErrors);
  };
  const ended = (event: H3Event, state: RequestState, record: RequestRecord, result: unknown): unknown => {
    try {
      // A body h3 sends (not sendBody or sendStream, which wrote the head): the headers set so far go on the Node response first.
      if (state.head) flushHead(event);
      // Limits passed before the body and never taken over by an admission: the slot goes back.
      state.limits?.release();
      observer.end(record, statusOfResult(result, event.res.status));
      return result;
    } catch (thrown) {
      return failed(event, state, record, thrown);
    }
  };
  // Not async: every request passes here, and a callback pair allocates less than a suspended frame.
  return (event) => {
    const state = requestState(event);
    setResponseHeader(event, 'x-request-id', state.ids.requestId);
    // Off the formats' own routes (`/v1/models`, an unknown path) the header of the format whose SDKs ask (Anthropic's `request-id`).
    const idHeader = format === undefined ? formatOfClient(event.url.pathname, (name) => requestHeader(event, name))?.requestIdHeader : requestIdHeader;
    if (idHeader) setResponseHeader(event, idHeader, state.ids.requestId);
    // A route on a cloud's API, whose SDKs read it from another header as well (Bedrock's InvokeModel: the AWS SDKs' x-amzn-requestid).
    if (routeIdHeader) setResponseHeader(event, routeIdHeader, state.ids.requestId);
    // Operators' requests (admin procedures polled by the TUI, scrapes) are not traced.
    const record = observer.tracer && internal !== true
      ? observer.begin(state.ids.requestId, route, operation, apiFormat, internal, {
          method: event.req.method,
          traceparent: requestHeader(event, 'traceparent'),
          tracestate: requestHeader(event, 'tracestate'),
        })
      : observer.begin(state.ids.requestId, route, operation, apiFormat, internal);
    state.record = record;
    let result: unknown;
    try {
      result = handler(event);
    } catch (thrown) {
      return failed(event, state, record, thrown);
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => ended(event, state, record, value),
        (thrown: unknown) => failed(event, state, record, thrown),
      );
    }
    return ended(event, state, record, result);
  };
}

function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment === '**' ? '.*' : segment.startsWith('**:') ? '.+' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** The h3 app: every route of the gateway, the envelope for unknown routes and methods. */
export function createApp(deps: ServerDeps): H3 {
  const dashboard = createDashboard(deps, 'public');
  return composeApp(deps, [...buildRoutes(deps), ...dashboardRoutes(dashboard)], true, dashboard);
}

/** The app of a separate admin listener (`server.admin.port`): the admin procedures and the dashboard's operator views. */
export function createAdminApp(deps: ServerDeps): H3 {
  const dashboard = createDashboard(deps, 'admin');
  return composeApp(deps, [...adminRoutes(deps, 'admin'), ...dashboardRoutes(dashboard)], false, dashboard);
}

function composeApp(deps: ServerDeps, routes: RouteDef[], withCors: boolean, dashboard: Dashboard): H3 {
  const app = new H3({
    onError: (error: HTTPError, event: H3Event) => {
      const status = error.status ?? 500;
      const code = status === 400 ? 'bad_request' : status === 404 ? 'not_found' : status === 413 ? 'request_too_large' : 'internal_error';
      return errorResponse(new GatewayError(code, status >= 500 ? 'An unexpected error occurred.' : error.message), event);
    },
  });
  if (withCors && deps.config.server.cors) app.use(corsMiddleware(createCors(deps.config.server.cors)));
  const warn = createClientErrorWarner(deps.log);
  // A route for one format's SDKs only (Gemini's `/v1/files` beside OpenAI's) is no other client's: never in a 405's Allow.
  const known = routes.filter((r) => !r.broad && !r.formatClientsOnly).map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  const broad = routes.filter((r) => r.broad).map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  const answerUnknown = (event: H3Event): unknown => {
    const path = event.url.pathname;
    const methods = known.filter((r) => r.pattern.test(path)).map((r) => r.method);
    if (methods.length > 0) {
      const allow = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]))), 'OPTIONS'].join(', ');
      event.res.headers.set('allow', allow);
      // OPTIONS on a known route (a preflight from an origin CORS does not allow lands here too): 204, no CORS headers.
      if (event.req.method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow, 'x-request-id': requestState(event).ids.requestId } });
      if (isWebSocketUpgrade(event) && methods.includes('POST')) {
        throw new GatewayError('upgrade_required', `This gateway serves ${path} over HTTP, not WebSocket: send POST ${path} (streams come as server-sent events).`);
      }
      throw new GatewayError('method_not_allowed', `Method ${event.req.method} is not allowed on ${path}. Allowed: ${allow}.`);
    }
    const meant = suggestBaseUrl(event.req.method, path, event.url.origin, known, broad);
    if (meant) throw new GatewayError('not_found', `No route for ${event.req.method} ${path}. Did you mean ${meant.path}? ${meant.hint}`, { details: { did_you_mean: meant.path } });
    throw noRoute(event.req.method, path, missingFormatHint(event.req.method, path));
  };
  const unmatched = wrap(answerUnknown, undefined, deps, 'unmatched');
  for (const [method, path, group] of sameRoutes(routes)) {
    // A URL a broad pattern took but its reader did not is an unknown path: the same answer, base-URL hint included.
    const handlers = group.map((route) => ({ route, handler: wrap(route.broad ? orUnknown(route.handler, answerUnknown) : route.handler, route.format, deps, route.path, warn, route.cloud) }));
    const handler = handlers.length === 1 && !group[0].formatClientsOnly ? handlers[0].handler : byClient(handlers, unmatched);
    app.on(method, path, handler);
    // HEAD answers every GET route with the same status and headers; Node sends no body for it.
    if (method === 'GET') app.on('HEAD', path, headOf(handler));
  }
  // The dashboard routes itself in the browser: a reload of /usage gets the page (but not /favicon.ico), recorded as `/` (operators' traffic).
  const page = wrap(dashboard.sendPage, undefined, deps, '/');
  // A path of a cloud's API the gateway does not serve (Bedrock's Converse with no bedrock provider, ApplyGuardrail, a typo): its SDKs' error and request id headers all the same.
  const clouds = listFormats().flatMap((format) => format.clouds ?? []).map((cloud) => ({ cloud, unmatched: wrap(answerUnknown, undefined, deps, 'unmatched', undefined, cloud) }));
  app.all('/**', (event) => {
    // Which kind of path it is, read with doubled slashes taken as one (a base URL ending in '/'): `//v1/files` is the API's, answered as unknown.
    const path = collapseSlashes(event.url.pathname);
    const cloud = clouds.find((c) => isCloudPath(c.cloud, path));
    if (cloud) return cloud.unmatched(event);
    const read = event.req.method === 'GET' || event.req.method === 'HEAD';
    const isPage = read && dashboard.enabled && !isApiPath(path, deps.config.metrics.path) && !isFilePath(path) && acceptsPage(event.req.headers.get('accept'));
    return isPage ? page(event) : unmatched(event);
  });
  return app;
}

/** The routes by method and path, in their order: several formats may serve one (Gemini's `GET /v1/files` beside OpenAI's). */
function sameRoutes(routes: readonly RouteDef[]): Array<[RouteDef['method'], string, RouteDef[]]> {
  const groups = new Map<string, [RouteDef['method'], string, RouteDef[]]>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const group = groups.get(key);
    if (group) group[2].push(route);
    else groups.set(key, [route.method, route.path, [route]]);
  }
  return [...groups.values()];
}

/**
 * One handler for the routes of a method and path: a route for a format's SDKs only
 * (RouteDef.formatClientsOnly) answers a request they send (isFormatClient), the other route
 * everyone else; with no other route, everyone else gets the unknown route's answer.
 */
function byClient(routes: ReadonlyArray<{ route: RouteDef; handler: Handler }>, unknown: Handler): Handler {
  const signed = routes.filter(({ route }) => route.formatClientsOnly && route.format !== undefined);
  const open = routes.find(({ route }) => !route.formatClientsOnly)?.handler ?? unknown;
  return (event) => {
    const mine = signed.find(({ route }) => isFormatClient(getFormat(route.format!), event));
    return (mine?.handler ?? open)(event);
  };
}

/** Whether a request comes from a format's SDKs: a path prefix or header only they send (formatOfClient), or its credential in the query (Gemini's `?key=`). */
function isFormatClient(format: FormatDefinition, event: H3Event): boolean {
  if (formatOfClient(event.url.pathname, (name) => requestHeader(event, name))?.id === format.id) return true;
  return format.credentials.some((source) => source.query !== undefined && event.url.searchParams.has(source.query));
}

/** `handler`, answering as `unknown` does when it finds the URL is not its own (noRoute). */
function orUnknown(handler: Handler, unknown: Handler): Handler {
  return (event) => {
    const fallBack = (error: unknown): unknown => {
      if (isNoRoute(error)) return unknown(event);
      throw error;
    };
    try {
      const result = handler(event);
      return result instanceof Promise ? result.catch(fallBack) : result;
    } catch (error) {
      return fallBack(error);
    }
  };
}

/**
 * A WebSocket handshake (`Upgrade: websocket`), e.g. Codex's Responses WebSocket. The gateway
 * has no WebSocket transport: such a request on a POST route is answered 426, which Codex takes
 * as "no WebSocket here" and goes to HTTPS at once (a 405 has it reconnect five times first).
 */
function isWebSocketUpgrade(event: H3Event): boolean {
  return event.req.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

/** A GET handler for HEAD: a text body still sets the Content-Length the GET would send. */
function headOf(handler: Handler): Handler {
  return async (event) => {
    const result = await handler(event);
    if (typeof result === 'string') setResponseHeader(event, 'content-length', String(Buffer.byteLength(result)));
    return result;
  };
}

/**
 * `server.cors`: a preflight from an allowed origin is answered 204 here; an actual request from
 * one gets its CORS headers before the route runs (so errors and streams carry them too). Other
 * origins get no CORS headers at all.
 */
function corsMiddleware(cors: Cors) {
  return (event: H3Event, next: () => unknown) => {
    const origin = originOf(event);
    if (origin === undefined) return next();
    const allowOrigin = cors.allowOrigin(origin);
    if (allowOrigin === undefined) return next();
    if (event.req.method === 'OPTIONS' && event.req.headers.has('access-control-request-method')) {
      const headers = cors.preflightHeaders(allowOrigin, event.req.headers.get('access-control-request-headers') ?? undefined);
      headers['x-request-id'] = requestState(event).ids.requestId;
      return new Response(null, { status: 204, headers });
    }
    cors.decorate(event, allowOrigin);
    return next();
  };
}
