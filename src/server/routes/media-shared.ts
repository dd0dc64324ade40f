import type { H3Event } from 'h3';
import type { AuthContext } from '../../accounts/index.ts';
import { runMediaExchange, type MediaCall } from '../../exchange/index.ts';
import type { Served } from '../../pipeline/index.ts';
import { clientAbort } from '../client-signal.ts';
import { bareAddress } from '../client-address.ts';
import { nodeOf, requestState } from '../context.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import type { ServerDeps } from '../types.ts';

/**
 * The origin clients should use for gateway URLs (temporary images): `media.publicBaseURL`,
 * else the address of the listener the request came in on. Never the request's Host or
 * X-Forwarded-Host header: a client could point the URLs it is given at a host of its choosing.
 */
export function publicOrigin(event: H3Event, deps: ServerDeps): string {
  const configured = deps.media.config.publicBaseURL;
  if (configured) return configured.replace(/\/+$/, '');
  const socket = nodeOf(event)?.req.socket;
  if (!socket?.localAddress || !socket.localPort) return `http://${deps.config.server.host.includes(':') ? `[${deps.config.server.host}]` : deps.config.server.host}:${deps.config.server.port}`;
  const host = bareAddress(socket.localAddress);
  return `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
}

/** The transport part of a media call: who asks, from where, the client's disconnect, the record, and where headers go. */
export function mediaCallOf(event: H3Event, deps: ServerDeps, auth: AuthContext, route: string): Pick<MediaCall<unknown, unknown>, 'auth' | 'route' | 'calledPath' | 'clientAddress' | 'limits' | 'ids' | 'client' | 'record' | 'onHeaders'> {
  const state = requestState(event);
  return {
    auth,
    route,
    calledPath: event.url.pathname,
    clientAddress: deps.clientAddress(event),
    // Taken before the body was read (JSON media routes): the admission takes them over.
    limits: state.limits,
    ids: state.ids,
    client: clientAbort(event),
    record: state.record,
    onHeaders: (headers) => {
      for (const name in headers) event.res.headers.set(name, headers[name]);
    },
  };
}

/** The provider part of a JSON media call (embeddings, moderations): the task, the model asked for, one attempt and what it used. */
type JsonMediaAttempt<T> = Pick<MediaCall<T, Served<T>>, 'task' | 'model' | 'run' | 'used'>;

/**
 * A JSON body read within the inference bound, decoded, and run over the models of its task;
 * the request log names the model as the client did (the exchange would name the first candidate).
 */
export async function runJsonMedia<Q, T>(event: H3Event, deps: ServerDeps, auth: AuthContext, route: string, decode: (body: Record<string, unknown>) => Q, attempt: (request: Q) => JsonMediaAttempt<T>): Promise<{ request: Q; served: Served<T> }> {
  const read = readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'inference')));
  const { body } = read instanceof Promise ? await read : read;
  const request = decode(body);
  const provider = attempt(request);
  const record = requestState(event).record;
  if (record) record.requestedModel = provider.model;
  const { value: served } = await runMediaExchange(deps, { ...mediaCallOf(event, deps, auth, route), ...provider, answer: (answered) => answered });
  return { request, served };
}
