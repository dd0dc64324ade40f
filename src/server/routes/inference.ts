import type { H3Event } from 'h3';
import type { ChatRequest, WireFormat } from '../../ir/types.ts';
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
import { sendBody, sendStream } from '../send.ts';
import { clientAbort } from '../client-signal.ts';
import type { Admission, AdmissionRequest } from '../../accounts/types.ts';
import type { ServerDeps } from '../types.ts';
import { captureResponses, rehydrateResponsesRequest } from './responses.ts';
import { holdEnd } from '../hold-end.ts';

/** Client headers passed to the upstream (never credentials). */
const FORWARDED = ['anthropic-beta', 'openai-beta'];

/** The client headers forwarded upstream (betas), for inference and its helper routes. */
export function forwardHeaders(event: H3Event): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
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
    readonly raw: string,
    readonly body: Record<string, unknown>,
    readonly client: AbortWatch,
  ) {
    this.forwardHeaders = forwardHeaders(event);
    this.sessionId = requestHeader(event, 'x-session-id');
    this.gatewayEvents = requestHeader(event, 'x-gateway-events');
    this.ids = requestState(event).ids;
  }

  get signal(): AbortSignal {
    return this.client.signal;
  }
}

/** POST /v1/chat/completions, /v1/messages, /v1/responses: authenticate, admit, run, relay. */
export function inferenceHandler(deps: ServerDeps, format: WireFormat, route: string) {
  const pipeline: ChatPipelineDeps = { registry: deps.registry, defaultMaxTokens: deps.config.defaults.maxTokens, routing: deps.config.routing };
  const bounds = jsonBodyBounds(deps, deps.config.server.bodyLimits.inference);
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const address = clientAddress(event, deps.config.server.trustProxy);
    // The key's rate limit and slot before a byte of the body is read: a key over its limits
    // cannot make the gateway read and parse bodies (issue 27).
    const passing = deps.guards.passLimits?.({ auth, method: 'POST', route, clientAddress: address });
    const limits = passing instanceof Promise ? await passing : passing;
    let admission: Admission;
    let exchange: InboundExchange;
    let request: ChatRequest;
    let capture: ReturnType<typeof captureResponses>;
    const record = requestState(event).record;
    try {
      // A small body is already buffered: read and parsed without a promise.
      const read = readJsonObjectNow(event, bounds);
      const { raw, body } = read instanceof Promise ? await read : read;
      checkInferenceBounds(body);
      exchange = new InboundExchange(event, format, raw, body, clientAbort(event));
      request = decodeInbound(exchange);
      if (record) {
        record.requestedModel = request.model;
        record.stream = request.stream;
        exchange.attempts = record;
      }
      if (format === 'responses') {
        request = await rehydrateResponsesRequest(deps, exchange, request, auth);
        exchange.capture = capture = captureResponses(deps, request, auth, exchange.raw);
        exchange.responseId = capture?.id;
        // An answer past this is relayed but not stored (a stream's size is known only at its end).
        if (capture) setResponseHeader(event, 'x-gateway-store-limit-bytes', String(deps.config.server.bodyLimits.inference));
      }
      const admissionRequest: AdmissionRequest = {
        auth,
        method: 'POST',
        route,
        clientAddress: address,
        limits,
        model: request.model,
        estimatedInputTokens: boundInputTokens(request),
        maxOutputTokens: request.maxTokens,
        requestId: exchange.ids.requestId,
      };
      // In-process guards answer at once: no promise, no await.
      admission = deps.guards.admitNow?.(admissionRequest) ?? (await deps.guards.admit(admissionRequest));
    } catch (error) {
      limits?.release();
      throw error;
    }
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
