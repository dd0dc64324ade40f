import type { H3Event } from 'h3';
import { createMediaRuntime, type MediaRuntime } from '../../media/media-runtime.ts';
import type { Served, Settlement } from '../../pipeline/index.ts';
import { callMedia, planCandidates, planMediaRoute, type MediaTask } from '../../media/call-media.ts';
import { buildRoutingHeaders, routerFor, type Router, type RoutePlan } from '../../routing/index.ts';
import { clientAbort } from '../client-signal.ts';
import type { CatalogModel } from '../../providers/types.ts';
import { bareAddress } from '../client-address.ts';
import { clientAddress, nodeOf, requestState } from '../context.ts';
import type { Admission, AuthContext } from '../../accounts/types.ts';
import type { RequestRecord } from '../../observability/index.ts';
import type { ServerDeps } from '../types.ts';

const runtimes = new WeakMap<ServerDeps, MediaRuntime>();

/** The media runtime of a server: the composed one, or one built on first use (tests that wire deps by hand). */
export function mediaRuntimeOf(deps: ServerDeps): MediaRuntime {
  if (deps.media) return deps.media;
  let runtime = runtimes.get(deps);
  if (!runtime) {
    runtime = createMediaRuntime({ config: deps.config, dataDir: deps.dataDir, store: deps.store, clock: deps.clock, log: deps.log });
    runtimes.set(deps, runtime);
  }
  return runtime;
}

/**
 * The origin clients should use for gateway URLs (temporary images): `media.publicBaseURL`,
 * else the address of the listener the request came in on. Never the request's Host or
 * X-Forwarded-Host header: a client could point the URLs it is given at a host of its choosing.
 */
export function publicOrigin(event: H3Event, deps: ServerDeps): string {
  const configured = mediaRuntimeOf(deps).config.publicBaseURL;
  if (configured) return configured.replace(/\/+$/, '');
  const socket = nodeOf(event)?.req.socket;
  if (!socket?.localAddress || !socket.localPort) return `http://${deps.config.server.host.includes(':') ? `[${deps.config.server.host}]` : deps.config.server.host}:${deps.config.server.port}`;
  const host = bareAddress(socket.localAddress);
  return `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
}

/**
 * Asks the request guards to admit a media request (priced by the first candidate, scoped by
 * all of them, reserving `media` units) and sets their headers on the response.
 */
export async function admitMedia(event: H3Event, deps: ServerDeps, auth: AuthContext, route: string, candidates: CatalogModel[], media?: MediaUnits): Promise<Admission> {
  const record = requestState(event).record;
  if (record) record.requestedModel ??= candidates[0]?.id;
  const admission = await deps.guards.admit({
    auth,
    method: 'POST',
    route,
    clientAddress: clientAddress(event, deps.config.server.trustProxy),
    limits: requestState(event).limits,
    model: candidates[0].id,
    servedBy: candidates,
    media,
  });
  for (const [k, v] of Object.entries(admission.headers)) event.res.headers.set(k, v);
  return admission;
}

/** What a media call produced, for per-item prices (ModelPricing.image, speechChars, audioMinute). */
export interface MediaUnits {
  images?: number;
  speechCharacters?: number;
  audioSeconds?: number;
}

/** A Settlement that also carries `media` units; billing may read them (see docs/media.md). */
export type MediaSettlement = Settlement & { media: MediaUnits };

/** A settlement for a media call; token counts are estimated when the provider gave none. */
export function mediaSettlement(
  served: Pick<Served<unknown>, 'model' | 'routing' | 'fallback'>,
  usage: { inputTokens?: number; outputTokens?: number } | undefined,
  estimatedInput: number,
  media: MediaUnits,
): MediaSettlement {
  const settlement: MediaSettlement = {
    model: served.model,
    usage: { inputTokens: usage?.inputTokens ?? estimatedInput, outputTokens: usage?.outputTokens ?? 0 },
    estimated: usage?.inputTokens === undefined,
    aborted: false,
    routing: served.routing,
    media,
  };
  if (served.fallback) settlement.fallback = served.fallback;
  return settlement;
}

/** A media request's route: planned over the models that can do `task` (and pass `accept`), with the router of the registry. */
export function routeMedia(
  deps: ServerDeps,
  requested: string,
  task: MediaTask,
  accept?: (model: CatalogModel) => boolean,
): { router: Router; plan: RoutePlan; candidates: CatalogModel[] } {
  const router = routerFor(deps.registry, deps.config.routing);
  const plan = planMediaRoute(router, requested, task, accept);
  return { router, plan, candidates: planCandidates(plan) };
}

/** Runs a routed media call (fallbacks, retries, breakers: tryCandidates) and sets the routing headers (spec §6.4). */
export async function callRoutedMedia<T>(
  event: H3Event,
  route: { router: Router; plan: RoutePlan },
  run: (model: CatalogModel, signal: AbortSignal) => Promise<T>,
): Promise<Served<T>> {
  const record = requestState(event).record;
  const served = await callMedia(route.router, route.plan, clientAbort(event), run, record);
  record?.servedBy(served.model.provider.id, served.model.id, served.fallback);
  const headers = buildRoutingHeaders(served.routing, served.fallback);
  for (const name in headers) event.res.headers.set(name, headers[name]);
  return served;
}

/** Settles in the background: billing must never fail a response that was already produced. The request's record learns what was charged. */
export function settleLater(deps: ServerDeps, admission: Admission, settlement: Settlement | null, record?: RequestRecord): void {
  const settling = admission
    .settle(settlement)
    .then((charge) => record?.applySettlement(settlement, charge))
    .catch((error: unknown) => deps.log.error('settle failed', { error: String(error) }));
  if (record) record.settling = settling;
}

/** Resolves once the admission's usage ledger line is written (group commit): the answer goes out after it. */
export async function usageRecorded(admission: Admission): Promise<void> {
  if (admission.recording) await admission.recording;
}
