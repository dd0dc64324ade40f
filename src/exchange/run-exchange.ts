import type { Admission } from '../accounts/index.ts';
import type { ChatRequest } from '../ir/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { checkConvertible, runChat, type ChatOutcome, type ChatPipelineDeps, type InboundRequest, type Settlement } from '../pipeline/index.ts';
import { admitCall } from './admit-call.ts';
import { CallExchange, rawOf, readCall, UNBILLED } from './call-exchange.ts';
import { holdEnd, type FailureBytes } from './hold-end.ts';
import { answerWithCost, streamWithCost, type ChargeOf } from './report-cost.ts';
import { settleOnce } from './settle-once.ts';
import { inlineStoredFiles, storedFilesOf } from './inline-stored-files.ts';
import { takeRequestFallbacks } from './request-fallbacks.ts';
import { resolveStoredReferences } from './resolve-references.ts';
import { asConversationTurn } from './conversations.ts';
import { captureResponses, checkResponsesQuota, rehydrateResponsesRequest, type StoredResponseCapture } from './stored-responses.ts';
import type { ExchangeAnswer, ExchangeCall, ExchangeDeps } from './types.ts';
import { validationError } from '../errors/index.ts';
import { conversationIdOf, framingOf, getFormat, type ProviderPreferences } from '../formats/index.ts';
import { readProviderPreferences } from '../routing/index.ts';


function pipelineOf(deps: ExchangeDeps): ChatPipelineDeps {
  return { registry: deps.registry, router: deps.router, defaultMaxTokens: deps.config.defaults.maxTokens };
}

/**
 * True when a Responses body involves the gateway's store: kept (`store` is not false), or
 * reading it (`previous_response_id`, `conversation`, an `item_reference` the gateway may hold).
 */
function usesResponsesStore(body: Record<string, unknown>): boolean {
  if (body.store !== false || (body.previous_response_id !== undefined && body.previous_response_id !== null)) return true;
  if (body.conversation !== undefined && body.conversation !== null) return true;
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

/**
 * One exchange, whatever brought it: read what billing and routing need (the body is decoded
 * only where a conversion or the Responses store needs it), admit, rehydrate and capture stored Responses,
 * run the pipeline, settle through one channel (the pipeline's `onSettled`, told once the
 * usage is final), and answer: a JSON body once its records are durable, or a stream whose
 * end waits for them. A failure before the answer releases the admission and is thrown.
 */
export function runExchange(deps: ExchangeDeps, sent: ExchangeCall): Promise<ExchangeAnswer> {
  // Not async, nor the steps below but the Responses store's: every request runs them, and a
  // callback per wait allocates less than suspended frames holding all their locals.
  try {
    const record = sent.record;
    // The request's own fallback models (OpenRouter's `models`), out of the body before anything reads it.
    const own = takeRequestFallbacks(deps, sent.format, sent.body);
    const call = own ? { ...sent, body: own.body, raw: own.raw } : sent;
    const raw = rawOf(call);
    // What billing and routing read, from the raw body: a passthrough never decodes it (issue 21 §7).
    const inbound = readCall({ format: call.format, target: call.target, body: call.body, raw });
    if (own && own.fallbacks.length > 0) inbound.facts.fallbacks = own.fallbacks;
    const preferences = providerPreferencesOf(call);
    if (preferences) inbound.facts.providerPreferences = preferences;
    if (record) {
      record.requestedModel = inbound.facts.model;
      record.stream = inbound.facts.stream;
    }
    // Files uploaded to the gateway that the request names (Gemini fileData, an OpenAI file_id) go inline: no upstream can read them.
    const files = storedFilesOf(call.format, call.body, raw);
    if (files.length > 0) {
      return inlineStoredFiles(deps, call.format, { body: call.body, raw }, files, call.auth).then((inlined) =>
        inlined.body === call.body ? withBody(deps, call, inbound, call.body, raw) : withBody(deps, call, reread(call, inlined.body, inlined.raw, inbound), inlined.body, inlined.raw),
      );
    }
    return withBody(deps, call, inbound, call.body, raw);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What billing and routing read of a rebuilt body (files inline, a stored chain), with the request's own fallbacks kept. */
function reread(call: ExchangeCall, body: Record<string, unknown>, raw: string, before: InboundRequest, decoded?: ChatRequest): InboundRequest {
  const inbound = readCall({ format: call.format, target: call.target, body, raw }, decoded);
  if (before.facts.fallbacks) inbound.facts.fallbacks = before.facts.fallbacks;
  if (before.facts.providerPreferences) inbound.facts.providerPreferences = before.facts.providerPreferences;
  return inbound;
}

/**
 * OpenRouter's `provider` routing preferences, read where the format takes OpenRouter's request
 * fields (it has request fallbacks: Chat, Responses): the gateway routes by them among its own
 * providers; the field itself goes on to an OpenRouter upstream, and is taken out for any other.
 */
function providerPreferencesOf(call: ExchangeCall): ProviderPreferences | undefined {
  const body = call.body;
  if (body.provider === undefined || getFormat(call.format).passthrough.modelFallbacks === undefined) return undefined;
  return readProviderPreferences(body.provider);
}

/** Runs the call with the body that goes on (the client's, or with its files inline), through the Responses store when it uses it. */
function withBody(deps: ExchangeDeps, call: ExchangeCall, inbound: InboundRequest, body: Record<string, unknown>, raw: string): Promise<ExchangeAnswer> {
  if (call.format === 'responses' && call.keepResponses === false && body.conversation !== undefined && body.conversation !== null) {
    // A batch line's answer is not kept, so it could not be added to the conversation (nor may it go upstream: the id is the gateway's).
    return Promise.reject(validationError({ conversation: 'is not served in a batch: a batch line is not added to a conversation; send the history in input' }));
  }
  if (call.format === 'responses' && call.keepResponses !== false && usesResponsesStore(body)) {
    const answer = (release?: () => Promise<void>) =>
      withResponsesStore(deps, call, inbound, body, raw, release).then((stored) => {
        const answering = admitAndRun(deps, call, stored.inbound, stored.body, stored.raw, stored.capture, stored.previousResponseId, stored.conversationId);
        // A compact answer names the chain's user messages, which only the rebuilt body holds.
        return call.compact && stored.body !== body ? answering.then((answer) => ({ ...answer, sentBody: stored.body })) : answering;
      });
    let conversationId: string | undefined;
    try {
      conversationId = call.compact ? undefined : conversationIdOf(body);
    } catch (error) {
      return Promise.reject(error);
    }
    return conversationId === undefined ? answer() : asConversationTurn(deps, call.auth.account.id, body, conversationId, answer);
  }
  return admitAndRun(deps, call, inbound, body, raw, undefined);
}

/** The Responses store needs the IR: references resolved, history rebuilt, the answer kept. */
async function withResponsesStore(
  deps: ExchangeDeps,
  call: ExchangeCall,
  inbound: InboundRequest,
  sent: Record<string, unknown>,
  raw: string,
  /** Gives back the conversation's hold (a turn): once its items are added. */
  releaseTurn?: () => Promise<void>,
): Promise<{ inbound: InboundRequest; body: Record<string, unknown>; raw: string; capture: StoredResponseCapture | undefined; previousResponseId: string | undefined; conversationId: string | undefined }> {
  let request = inbound.ir;
  let body = sent;
  const conversationId = conversationIdOf(body);
  const referenced = { format: call.format, target: call.target, body, raw };
  request = await resolveStoredReferences(deps, referenced, request, call.auth);
  ({ body, raw } = referenced);
  // The turn a conversation gets: the input as the client sent it (references resolved), before any history, its files by their ids.
  const conversation = conversationId === undefined || call.compact ? undefined : { id: conversationId, input: sent === call.body ? body.input : turnInputOf(call.body.input, body.input), release: releaseTurn };
  const rehydrated = await rehydrateResponsesRequest(deps, request, call.auth.account.id, call.compact ? body : undefined, conversationId);
  if (rehydrated) ({ request, body, raw } = rehydrated);
  // What goes on is decoded again when a conversation's files went inline in it.
  let decoded: ChatRequest | undefined = request;
  if (rehydrated && conversationId !== undefined) {
    // A conversation's items keep a file_id as given (items.create): the gateway's files go inline as in the request's own input (scope and bounds alike).
    const files = storedFilesOf(call.format, body, raw);
    if (files.length > 0) {
      const inlined = await inlineStoredFiles(deps, call.format, { body, raw }, files, call.auth);
      if (inlined.body !== body) ({ body, raw } = inlined), (decoded = undefined);
    }
  }
  const capture = call.compact ? undefined : captureResponses(deps, request, call.auth.account.id, raw, conversation);
  if (capture) await checkResponsesQuota(deps, call.auth.account.id);
  if (body !== sent) inbound = reread(call, body, raw, inbound, decoded);
  return { inbound, body, raw, capture, previousResponseId: request.previousResponseId, conversationId: request.conversationId };
}

/**
 * A turn's input as a conversation keeps it when the gateway's files went inline in what goes on:
 * the client's own items (a file by its `file_id`, inlined again on each turn, so its bytes are
 * not kept in the conversation nor outlive the file), with the stored items its references name.
 * Inlining and resolving both map the input item for item.
 */
function turnInputOf(client: unknown, resolved: unknown): unknown {
  if (!Array.isArray(client) || !Array.isArray(resolved) || client.length !== resolved.length) return resolved;
  return client.map((item: unknown, i) => (isItemReference(item) ? resolved[i] : item));
}

function isItemReference(item: unknown): boolean {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference';
}

/** Admits the call (after a certain conversion's checks), then runs it. */
function admitAndRun(
  deps: ExchangeDeps,
  call: ExchangeCall,
  inbound: InboundRequest,
  body: Record<string, unknown>,
  raw: string,
  capture: StoredResponseCapture | undefined,
  previousResponseId?: string,
  conversationId?: string,
): Promise<ExchangeAnswer> {
  // A conversion is certain: its 400/422 (an invalid call_id, an unresolvable item_reference) come before the credit hold, not a 402 for a body that was never valid.
  const converting = surelyConverting(deps, inbound.facts.model, call.format);
  if (converting) checkConvertible(inbound.ir, converting);
  const exchange = new CallExchange(call, body, raw);
  exchange.capture = capture;
  exchange.responseId = capture?.id;
  exchange.previousResponseId = previousResponseId;
  exchange.conversationId = conversationId;
  const admitting = call.billed === false ? UNBILLED : admitCall(deps, call, inbound.facts);
  if (admitting instanceof Promise) return admitting.then((admission) => runAdmitted(deps, call, inbound, exchange, capture, admission));
  return runAdmitted(deps, call, inbound, exchange, capture, admitting);
}

/** Runs an admitted call through the pipeline, settling through one channel; a failure before the answer releases the admission. */
function runAdmitted(
  deps: ExchangeDeps,
  call: ExchangeCall,
  inbound: InboundRequest,
  exchange: CallExchange,
  capture: StoredResponseCapture | undefined,
  admission: Admission,
): Promise<ExchangeAnswer> {
  const record = call.record;
  call.onHeaders?.(admission.headers);
  // An answer past this is relayed but not stored (a stream's size is known only at its end).
  if (capture) call.onHeaders?.({ 'x-gateway-store-limit-bytes': String(deps.config.server.bodyLimits.inference) });

  // The one settlement channel: the pipeline's `onSettled`, and a failure before the answer (released).
  const { settle, settled } = settleOnce(deps, admission, record);
  // A stored Response is one of the answer's records (docs/billing.md): the call is charged once its
  // copy is written, and not at all when it cannot be (its answer then fails, 503), as for its ledger line.
  let charging: Promise<void> | undefined;
  exchange.onSettled = (settlement) => {
    const saving = capture?.saving;
    if (!saving) return void settle(settlement);
    const charged = (after: Settlement | null) => () => {
      if (charging === waiting) charging = undefined;
      void settle(after);
    };
    // A refused turn whose answer went out (a stream) is charged; a record that could not be written, or a whole answer replaced by the refusal, is not.
    const waiting = saving.then(charged(settlement), () => charged(capture?.turnRefusal && capture.turnRefusalCharged ? settlement : null)());
    charging = waiting;
  };

  // Made here, not in the callback below: a closure naming `call` would keep the whole call (its body, its
  // request) alive as long as the answer's closures, which turned every chat request's garbage old (GC ~4x).
  const failure = turnRefusalBytes(call, capture);
  return runChat(pipelineOf(deps), exchange, inbound).then(
    (outcome) => answerOf(record, outcome, capture, admission, settled, () => charging, failure),
    (error: unknown) =>
      settle(null).then(() => {
        throw error;
      }),
  );
}

/**
 * How a stream ends whose conversation turn was refused (an answer too large to keep,
 * StoredResponseCapture.turnRefusal): with the client format's failure records (Responses: `error`,
 * then `response.failed`) in place of its completion, so the client knows the turn is not kept.
 */
function turnRefusalBytes(call: ExchangeCall, capture: StoredResponseCapture | undefined): FailureBytes | undefined {
  if (!capture) return undefined;
  // Only what the records need, not the call (see runAdmitted).
  const { ids } = call;
  const formatId = call.format;
  const framing = call.target?.framing;
  return (error) => {
    if (error === undefined || error !== capture.turnRefusal) return undefined;
    const format = getFormat(formatId);
    const refusal = capture.turnRefusal;
    const records = format.codec.encodeStreamFailure?.(refusal, ids) ?? [format.codec.encodeStreamError(refusal, ids)];
    const writer = framingOf(format, framing).createWriter();
    const bytes = writer.write(records);
    const end = writer.end();
    return end === '' || end.length === 0 ? bytes : Buffer.concat([Buffer.from(bytes), Buffer.from(end)]);
  };
}

/** The exchange's answer: a JSON body once its records are durable, or a stream whose end waits for them. */
function answerOf(
  record: ExchangeCall['record'],
  outcome: ChatOutcome,
  capture: StoredResponseCapture | undefined,
  admission: Admission,
  settled: ChargeOf,
  charging: () => Promise<void> | undefined,
  failure?: FailureBytes,
): ExchangeAnswer | Promise<ExchangeAnswer> {
  if (record) {
    record.servedBy(outcome.model.provider.id, outcome.model.id, outcome.fallback);
    record.adapted = outcome.adapted;
    record.droppedTools = outcome.droppedTools;
  }
  // The answer's end waits for its records: the stored Response it names, then its charge and usage ledger line (group commit).
  const pending = () => capture?.saving ?? charging() ?? admission.recording;
  // OpenRouter's usage accounting, asked by the client (rare): the answer's usage says what it was charged.
  const report = outcome.reportCost;
  if (outcome.stream) {
    const stream = report ? streamWithCost(outcome.stream, report, settled) : outcome.stream;
    return { status: outcome.status, headers: outcome.headers, stream: holdEnd(stream, pending, failure), settled };
  }
  const answer = durableJson(pending, outcome, capture, settled);
  return report ? answerWithCost(answer, report, settled) : answer;
}

/** A JSON answer, sent once nothing is pending any more (a wait may be followed by another). */
function durableJson(
  pending: () => Promise<unknown> | undefined,
  outcome: ChatOutcome,
  capture: StoredResponseCapture | undefined,
  settled: ChargeOf,
): ExchangeAnswer | Promise<ExchangeAnswer> {
  const waiting = pending();
  if (waiting) return waiting.then(() => durableJson(pending, outcome, capture, settled));
  const headers = outcome.headers;
  if (capture?.notStored) headers['x-gateway-response-stored'] = 'false';
  return { status: outcome.status, headers, json: outcome.json ?? '', settled };
}
