import type { H3Event } from 'h3';
import type { AuthContext, PassedLimits } from '../../accounts/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { runExchange } from '../../exchange/index.ts';
import { listFormats, type BodyShape, type FormatRoute, type RouteTarget } from '../../formats/index.ts';
import type { WireFormat } from '../../ir/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { checkInferenceBounds } from '../check-inference-bounds.ts';
import { clientAbort } from '../client-signal.ts';
import { noRoute } from '../hint-base-url.ts';
import { requestHeader, requestState, setResponseHeader } from '../context.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject, type JsonObjectBody } from '../read-body.ts';
import { sendBody, sendStream } from '../send.ts';
import { patchJsonFields } from '../../util/index.ts';
import type { ServerDeps } from '../types.ts';

/** Client headers passed to the upstream (never credentials): every format's `forwardHeaders`, read when the routes are built. */
function forwardedNames(): string[] {
  return [...new Set(listFormats().flatMap((format) => format.forwardHeaders ?? []))];
}

/** The client headers forwarded upstream (betas), for inference and its helper routes. */
export function forwardHeaders(event: H3Event, names: readonly string[] = forwardedNames()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = requestHeader(event, name);
    if (value) out[name] = value;
  }
  return out;
}

/** What a route whose format carries the model in the path read from the URL; 404 when the URL is not one of its own. */
function targetOf(deps: ServerDeps, event: H3Event, route: FormatRoute): RouteTarget | undefined | null {
  if (route.from !== 'path') return undefined;
  const target = route.readPath(event.url.pathname, event.url.searchParams);
  return target ? servedTarget(deps, target) : null;
}

/** The target with the first spelling of its model the gateway serves (RouteTarget.alsoKnownAs); as read when it serves the path's id or none. */
function servedTarget(deps: ServerDeps, target: RouteTarget): RouteTarget {
  const model = servedModel(deps, target.model, target.alsoKnownAs);
  return model === target.model ? target : { ...target, model };
}

/** `model`, else the first of its other spellings the gateway serves (a cloud's id), else `model` (refused later as unknown). */
export function servedModel(deps: ServerDeps, model: string, others: readonly string[] | undefined): string {
  if (!others || others.length === 0 || deps.registry.serves(model)) return model;
  return others.find((id) => deps.registry.serves(id)) ?? model;
}

/** How a path route changes the body before anything reads it (FormatRoute.shapeBody: a cloud path's Messages body); undefined for most routes. */
function shapeOf(event: H3Event, route: FormatRoute, target: RouteTarget | undefined, body: Record<string, unknown>): BodyShape | undefined {
  return route.from === 'path' && target && route.shapeBody ? route.shapeBody(body, target, (name) => requestHeader(event, name)) : undefined;
}

/** The body with the shape's fields set and removed, the bytes edited in place. */
function shapedBody(received: JsonObjectBody, shape: BodyShape): JsonObjectBody {
  const body = { ...received.body };
  for (const key of shape.remove ?? []) delete body[key];
  Object.assign(body, shape.set);
  return { raw: patchJsonFields(received.raw, shape.set, shape.remove) ?? JSON.stringify(body), body };
}

/** A route that runs an exchange of another kind than plain inference: `POST /v1/responses/compact`. */
export interface ExchangeRouteKind {
  /** The body is a compact request (ExchangeCall.compact). */
  compact?: boolean;
  /** Checks the body before the exchange (throws a GatewayError). */
  check?(body: Record<string, unknown>): void;
  /** The whole answer the client gets, from the exchange's JSON answer and the client's body. */
  reshape?(json: string, body: Record<string, unknown>): string;
}

/**
 * A format's inbound route (POST /v1/chat/completions, /v1/messages, /v1/responses, …): read the
 * request, hand it to runExchange, send what it answers. A path route whose URL is not its own
 * goes to `other` (a route of the format's face on the same pattern), else 404.
 */
export function inferenceHandler(deps: ServerDeps, format: WireFormat, formatRoute: FormatRoute, other?: (event: H3Event) => Promise<unknown>, kind?: ExchangeRouteKind) {
  const route = formatRoute.path;
  const forwarded = forwardedNames();
  const bounds = jsonBodyBounds(deps, bodyLimit(deps, 'inference'));

  // The body, read and parsed without a promise when small (already buffered), then the exchange.
  const readAndRun = (event: H3Event, target: RouteTarget | undefined, auth: AuthContext, limits: PassedLimits | undefined): Promise<unknown> => {
    const read = readJsonObject(event, bounds);
    if (read instanceof Promise) return read.then((body) => run(event, target, auth, limits, body));
    return run(event, target, auth, limits, read);
  };

  const run = (event: H3Event, target: RouteTarget | undefined, auth: AuthContext, limits: PassedLimits | undefined, received: JsonObjectBody): Promise<unknown> => {
    const shape = shapeOf(event, formatRoute, target, received.body);
    const { raw, body } = shape ? shapedBody(received, shape) : received;
    checkInferenceBounds(body);
    kind?.check?.(body);
    const state = requestState(event);
    const answering = runExchange(deps, {
      format,
      target,
      body,
      raw,
      auth,
      route,
      clientAddress: deps.clientAddress(event),
      limits,
      compact: kind?.compact,
      ids: state.ids,
      client: clientAbort(event),
      forwardHeaders: shape?.headers ? { ...forwardHeaders(event, forwarded), ...shape.headers } : forwardHeaders(event, forwarded),
      gatewayEvents: requestHeader(event, 'x-gateway-events'),
      sessionId: requestHeader(event, 'x-session-id'),
      record: state.record,
      onHeaders: (headers) => {
        for (const name in headers) setResponseHeader(event, name, headers[name]);
      },
    });
    return answering.then((answer) => {
      if (answer.stream) {
        state.record?.firstByte();
        return sendStream(event, answer.status, answer.headers, answer.stream);
      }
      const json = answer.json ?? '';
      return sendBody(event, answer.status, answer.headers, kind?.reshape ? kind.reshape(json, answer.sentBody ?? body) : json);
    });
  };

  // Not async, nor the steps above: every request runs them, and most wait only for the exchange
  // (a local limiter, a buffered body); a callback allocates less than a suspended frame.
  return (event: H3Event): Promise<unknown> => {
    try {
      const target = targetOf(deps, event, formatRoute);
      if (target === null) {
        if (other) return other(event);
        throw noRoute(event.req.method, event.url.pathname);
      }
      const auth = authenticateApiKey(event, deps, format);
      // The key's rate limit and slot before a byte of the body is read (issue 27); a refused body gives the slot back (route wrapper).
      const passing = passLimitsFirst(event, deps, auth, route);
      if (passing instanceof Promise) return passing.then((limits) => readAndRun(event, target, auth, limits));
      return readAndRun(event, target, auth, passing);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
