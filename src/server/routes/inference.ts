import type { H3Event } from 'h3';
import type { WireFormat } from '../../ir/types.ts';
import { GatewayError } from '../../errors/index.ts';
import { listFormats, type FormatRoute, type RouteTarget } from '../../formats/index.ts';
import { decodeInbound, runChat, type ChatPipelineDeps } from '../../pipeline/run-chat.ts';
import type { RequestIds } from '../../errors/index.ts';
import type { AbortWatch } from '../../util/abort.ts';
import { boundInputTokens } from '../../pipeline/index.ts';
import type { ChatExchange, ResponseCapture, Settlement } from '../../pipeline/types.ts';
import type { AttemptObserver, SettledCharge } from '../../observability/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { clientAddress, requestHeader, requestState, setResponseHeader } from '../context.ts';
import { checkInferenceBounds } from '../check-inference-bounds.ts';
import { jsonBodyBounds, readJsonObjectNow } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { sendBody, sendStream } from '../send.ts';
import { clientAbort } from '../client-signal.ts';
import type { Admission, AdmissionRequest } from '../../accounts/types.ts';
import type { ServerDeps } from '../types.ts';
import { captureResponses, checkResponsesQuota, rehydrateResponsesRequest } from './responses.ts';
import { resolveStoredReferences } from './resolve-references.ts';
import { holdEnd } from '../hold-end.ts';

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

/** One inbound request for the pipeline; the client's AbortSignal is made only if something reads it. */
class InboundExchange implements ChatExchange {
  readonly forwardHeaders: Record<string, string>;
  readonly sessionId: string | undefined;
  readonly gatewayEvents: string | undefined;
  readonly ids: RequestIds;
  capture: ResponseCapture | undefined;
  responseId: string | undefined;
  onSettled: ((settlement: Settlement) => void) | undefined;
  attempts: AttemptObserver | undefined = undefined;

  constructor(
    event: H3Event,
    readonly format: WireFormat,
    readonly target: RouteTarget | undefined,
    readonly raw: string,
    readonly body: Record<string, unknown>,
    readonly client: AbortWatch,
    forwarded: readonly string[],
  ) {
    this.forwardHeaders = forwardHeaders(event, forwarded);
    this.sessionId = requestHeader(event, 'x-session-id');
    this.gatewayEvents = requestHeader(event, 'x-gateway-events');
    this.ids = requestState(event).ids;
  }

  get signal(): AbortSignal {
    return this.client.signal;
  }
}

/** What a route whose format carries the model in the path read from the URL; 404 when the URL is not one of its own. */
function targetOf(event: H3Event, route: FormatRoute): RouteTarget | undefined {
  if (route.from !== 'path') return undefined;
  const target = route.readPath(event.url.pathname, event.url.searchParams);
  if (!target) throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
  return target;
}

/** A format's inbound route (POST /v1/chat/completions, /v1/messages, /v1/responses, …): authenticate, admit, run, relay. */
export function inferenceHandler(deps: ServerDeps, format: WireFormat, formatRoute: FormatRoute) {
  const pipeline: ChatPipelineDeps = { registry: deps.registry, defaultMaxTokens: deps.config.defaults.maxTokens, routing: deps.config.routing };
  const route = formatRoute.path;
  const forwarded = forwardedNames();
  const bounds = jsonBodyBounds(deps, deps.config.server.bodyLimits.inference);
  return async (event: H3Event): Promise<unknown> => {
    const target = targetOf(event, formatRoute);
    const auth = authenticateApiKey(event, deps, format);
    // The key's rate limit and slot before a byte of the body is read (issue 27); a refused body gives the slot back (route wrapper).
    const passing = passLimitsFirst(event, deps, auth, route);
    const limits = passing instanceof Promise ? await passing : passing;
    // A small body is already buffered: read and parsed without a promise.
    const read = readJsonObjectNow(event, bounds);
    const { raw, body } = read instanceof Promise ? await read : read;
    checkInferenceBounds(body);
    const exchange = new InboundExchange(event, format, target, raw, body, clientAbort(event), forwarded);
    let request = decodeInbound(exchange);
    let capture: ReturnType<typeof captureResponses>;
    const record = requestState(event).record;
    if (record) {
      record.requestedModel = request.model;
      record.stream = request.stream;
      exchange.attempts = record;
    }
    if (format === 'responses') {
      request = await resolveStoredReferences(deps, exchange, request, auth);
      request = await rehydrateResponsesRequest(deps, exchange, request, auth);
      exchange.capture = capture = captureResponses(deps, request, auth, exchange.raw);
      if (capture) await checkResponsesQuota(deps, auth.account.id);
      exchange.responseId = capture?.id;
      // An answer past this is relayed but not stored (a stream's size is known only at its end).
      if (capture) setResponseHeader(event, 'x-gateway-store-limit-bytes', String(deps.config.server.bodyLimits.inference));
    }
    const admissionRequest: AdmissionRequest = {
      auth,
      method: 'POST',
      route,
      clientAddress: clientAddress(event, deps.config.server.trustProxy),
      limits,
      model: request.model,
      estimatedInputTokens: boundInputTokens(request),
      maxOutputTokens: request.maxTokens,
      requestId: exchange.ids.requestId,
    };
    // In-process guards answer at once: no promise, no await.
    const admission = deps.guards.admitNow?.(admissionRequest) ?? (await deps.guards.admit(admissionRequest));
    for (const name in admission.headers) setResponseHeader(event, name, admission.headers[name]);
    // Settled as soon as the usage is final, before the answer's last bytes go out.
    let charging: Promise<SettledCharge | void> | undefined;
    let settledWith: Settlement | undefined;
    exchange.onSettled = (settlement) => {
      settledWith = settlement;
      charging = admission.settle(settlement);
      charging.catch((error: unknown) => deps.log.error('settle failed', { error: String(error) }));
    };
    let outcome;
    try {
      outcome = await runChat(pipeline, exchange, request);
    } catch (error) {
      await admission.settle(null);
      throw error;
    }
    if (record) {
      record.servedBy(outcome.model.provider.id, outcome.model.id, outcome.fallback);
      record.adapted = outcome.adapted;
      record.droppedTools = outcome.droppedTools;
      const settled = settledWith;
      if (settled && charging) {
        // A whole answer was settled while it ran: the record waits for the charge only.
        record.settling = charging.then(
          (charge) => record.applySettlement(settled, charge),
          (error: unknown) => deps.log.error('settle failed', { error: String(error) }),
        );
      } else {
        record.settling = outcome.settled.then(async (s) => record.applySettlement(s, await charging)).catch((error) => deps.log.error('settle failed', { error: String(error) }));
      }
    }
    // The answer's end waits for its records: the stored Response it names, its usage ledger line (group commit).
    const pending = () => capture?.saving ?? admission.recording;
    if (outcome.stream) {
      record?.firstByte();
      return sendStream(event, outcome.status, outcome.headers, holdEnd(outcome.stream, pending));
    }
    for (let waiting = pending(); waiting; waiting = pending()) await waiting;
    if (capture?.notStored) setResponseHeader(event, 'x-gateway-response-stored', 'false');
    return sendBody(event, outcome.status, outcome.headers, outcome.json ?? '');
  };
}
