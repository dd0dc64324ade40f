import type { Admission } from '../accounts/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { checkConvertible, runChat, type ChatOutcome, type ChatPipelineDeps, type Settlement } from '../pipeline/index.ts';
import { admitCall } from './admit-call.ts';
import { CallExchange, rawOf, readCall, UNBILLED } from './call-exchange.ts';
import { holdEnd } from './hold-end.ts';
import { resolveStoredReferences } from './resolve-references.ts';
import { captureResponses, checkResponsesQuota, rehydrateResponsesRequest, type StoredResponseCapture } from './stored-responses.ts';
import type { ExchangeAnswer, ExchangeCall, ExchangeDeps } from './types.ts';


function pipelineOf(deps: ExchangeDeps): ChatPipelineDeps {
  return { registry: deps.registry, router: deps.router, defaultMaxTokens: deps.config.defaults.maxTokens };
}

/**
 * One exchange, whatever brought it: read what billing and routing need (the body is decoded
 * only where a conversion or the Responses store needs it), admit, rehydrate and capture stored Responses,
 * run the pipeline, settle through one channel (the pipeline's `onSettled`, told once the
 * usage is final), and answer: a JSON body once its records are durable, or a stream whose
 * end waits for them. A failure before the answer releases the admission and is thrown.
 */
/**
 * True when a Responses body involves the gateway's store: kept (`store` is not false), or
 * reading it (`previous_response_id`, an `item_reference` the gateway may hold).
 */
function usesResponsesStore(body: Record<string, unknown>): boolean {
  if (body.store !== false || (body.previous_response_id !== undefined && body.previous_response_id !== null)) return true;
  return Array.isArray(body.input) && body.input.some((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference');
}

/**
 * The first model the requested id resolves to when none of them speaks the client's format:
 * the first call converts, so the request is decoded and checked anyway. Undefined when the id
 * resolves to nothing (its own error comes later, as before) or a candidate may pass it through
 * (a passthrough is never stricter than the upstream).
 */
function surelyConverting(deps: ExchangeDeps, model: string, format: ExchangeCall['format']): CatalogModel | undefined {
  let candidates: readonly CatalogModel[];
  try {
    candidates = deps.registry.resolve(model).candidates;
  } catch {
    return undefined;
  }
  return candidates.some((candidate) => candidate.formats.includes(format)) ? undefined : candidates[0];
}

export async function runExchange(deps: ExchangeDeps, call: ExchangeCall): Promise<ExchangeAnswer> {
  const record = call.record;
  let body = call.body;
  let raw = rawOf(call);
  let capture: StoredResponseCapture | undefined;
  // What billing and routing read, from the raw body: a passthrough never decodes it (issue 21 §7).
  let inbound = readCall({ format: call.format, target: call.target, body, raw });
  if (record) {
    record.requestedModel = inbound.facts.model;
    record.stream = inbound.facts.stream;
  }
  if (call.format === 'responses' && call.keepResponses !== false && usesResponsesStore(body)) {
    // The Responses store needs the IR: references resolved, history rebuilt, the answer kept.
    let request = inbound.ir;
    const referenced = { format: call.format, target: call.target, body, raw };
    request = await resolveStoredReferences(deps, referenced, request, call.auth);
    ({ body, raw } = referenced);
    const rehydrated = await rehydrateResponsesRequest(deps, request, call.auth.account.id);
    if (rehydrated) ({ request, body, raw } = rehydrated);
    capture = captureResponses(deps, request, call.auth.account.id, raw);
    if (capture) await checkResponsesQuota(deps, call.auth.account.id);
    if (body !== call.body) inbound = readCall({ format: call.format, target: call.target, body, raw }, request);
  }
  // A conversion is certain: its 400/422 (an invalid call_id, an unresolvable item_reference) come before the credit hold, not a 402 for a body that was never valid.
  const converting = surelyConverting(deps, inbound.facts.model, call.format);
  if (converting) checkConvertible(inbound.ir, converting);
  const request = inbound.facts;
  const admitting = call.billed === false ? UNBILLED : admitCall(deps, call, request);
  const admission = admitting instanceof Promise ? await admitting : admitting;
  call.onHeaders?.(admission.headers);
  // An answer past this is relayed but not stored (a stream's size is known only at its end).
  if (capture) call.onHeaders?.({ 'x-gateway-store-limit-bytes': String(deps.config.server.bodyLimits.inference) });

  const exchange = new CallExchange(call, body, raw);
  exchange.capture = capture;
  exchange.responseId = capture?.id;
  let done!: () => void;
  const settled = new Promise<void>((resolve) => (done = resolve));
  if (record) record.settling = settled;
  // The one settlement channel: charged once, the record told what was charged, then `settled`.
  const settle = (settlement: Settlement | null): Promise<void> => {
    if (record && settlement?.aborted) {
      record.errorCode ??= 'client_closed';
      record.status = 499;
    }
    const charged = admission.settle(settlement).then(
      (charge) => record?.applySettlement(settlement, charge),
      (error: unknown) => deps.log.error('settle failed', { error: String(error) }),
    );
    void charged.then(done);
    return charged;
  };
  exchange.onSettled = settle;

  let outcome: ChatOutcome;
  try {
    outcome = await runChat(pipelineOf(deps), exchange, inbound);
  } catch (error) {
    await settle(null);
    throw error;
  }
  if (record) {
    record.servedBy(outcome.model.provider.id, outcome.model.id, outcome.fallback);
    record.adapted = outcome.adapted;
    record.droppedTools = outcome.droppedTools;
  }
  const headers = outcome.headers;
  // The answer's end waits for its records: the stored Response it names, its usage ledger line (group commit).
  const pending = () => capture?.saving ?? admission.recording;
  if (outcome.stream) return { status: outcome.status, headers, stream: holdEnd(outcome.stream, pending), settled };
  for (let waiting = pending(); waiting; waiting = pending()) await waiting;
  if (capture?.notStored) headers['x-gateway-response-stored'] = 'false';
  return { status: outcome.status, headers, json: outcome.json ?? '', settled };
}
