import type { H3Event } from 'h3';
import type { WireFormat } from '../../ir/types.ts';
import { decodeInbound, runChat } from '../../pipeline/run-chat.ts';
import { estimateInputTokens } from '../../pipeline/estimate-usage.ts';
import type { ChatExchange } from '../../pipeline/types.ts';
import { authenticateApiKey } from '../auth.ts';
import { clientAddress, requestState, setResponseHeader } from '../context.ts';
import { readJsonObject } from '../read-body.ts';
import { sendBody, sendStream } from '../send.ts';
import { clientSignal } from '../client-signal.ts';
import type { ServerDeps } from '../types.ts';
import { rehydrateResponsesRequest, storeResponsesOutcome } from './responses.ts';

/** Client headers passed to the upstream (never credentials). */
const FORWARDED = ['anthropic-beta', 'openai-beta'];

function forwardHeaders(event: H3Event): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = event.req.headers.get(name);
    if (value) out[name] = value;
  }
  return out;
}

/** POST /v1/chat/completions, /v1/messages, /v1/responses: authenticate, admit, run, relay. */
export function inferenceHandler(deps: ServerDeps, format: WireFormat, route: string) {
  return async (event: H3Event): Promise<unknown> => {
    const auth = authenticateApiKey(event, deps);
    const { raw, body } = await readJsonObject(event, deps.config.server.bodyLimits.inference);
    const state = requestState(event);
    const exchange: ChatExchange = {
      format,
      raw,
      body,
      forwardHeaders: forwardHeaders(event),
      signal: clientSignal(event),
      ids: state.ids,
      gatewayEvents: event.req.headers.get('x-gateway-events') ?? undefined,
    };
    let request = decodeInbound(exchange);
    if (format === 'responses') request = await rehydrateResponsesRequest(deps, exchange, request, auth);
    const admission = await deps.guards.admit({
      auth,
      method: 'POST',
      route,
      clientAddress: clientAddress(event, deps.config.server.trustProxy),
      model: request.model,
      estimatedInputTokens: estimateInputTokens(request),
      maxOutputTokens: request.maxTokens,
    });
    for (const name in admission.headers) setResponseHeader(event, name, admission.headers[name]);
    let outcome;
    try {
      outcome = await runChat({ registry: deps.registry, defaultMaxTokens: deps.config.defaults.maxTokens, routing: deps.config.routing }, exchange, request);
    } catch (error) {
      await admission.settle(null);
      throw error;
    }
    if (format === 'responses') outcome = storeResponsesOutcome(deps, outcome, request, auth);
    void outcome.settled.then((s) => admission.settle(s)).catch((error) => deps.log.error('settle failed', { error: String(error) }));
    if (outcome.stream) return sendStream(event, outcome.status, outcome.headers, outcome.stream);
    return sendBody(event, outcome.status, outcome.headers, outcome.json ?? '');
  };
}
