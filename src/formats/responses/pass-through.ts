import { compactionSummaryText, readCompactionSummary } from './compaction.ts';
import { readResponsesRequest } from './read-request.ts';
import { capFields, CARRIED_ID_PREFIX, CARRIED_PREFIXES, isRecord, readCarried, readToolId } from '../shared/index.ts';
import { functionCallItemIdFor } from './create-id.ts';
import { withoutOpenRouterFields } from './openrouter-fields.ts';
import type { PassthroughRequest, PassthroughRules, PassthroughTarget, RewriteContext, WireRecord } from '../types.ts';

/** Responses events that carry the whole response object, and so its id. */
const RESPONSE_OBJECT_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.completed', 'response.incomplete', 'response.failed']);

/** A lifecycle record with the gateway's response id (and the previous one the client named) instead of the upstream's; undefined when it has none. */
function withResponseId(record: WireRecord, context: RewriteContext): WireRecord | undefined {
  if (context.responseId === undefined && context.previousResponseId === undefined && context.conversationId === undefined) return undefined;
  if (record.event === undefined || !RESPONSE_OBJECT_EVENTS.has(record.event)) return undefined;
  let payload: { response?: Record<string, unknown> };
  try {
    payload = JSON.parse(record.data) as { response?: Record<string, unknown> };
  } catch {
    return undefined;
  }
  const response = payload?.response;
  if (!response || typeof response !== 'object' || typeof response.id !== 'string') return undefined;
  if (!nameStoredIds(response, context)) return undefined;
  return { event: record.event, data: JSON.stringify(payload) };
}

/**
 * A passed Responses object (a whole answer, or one a lifecycle event carries) given the ids the
 * client knows: the gateway's own for the response, `previous_response_id` when the request
 * followed one and `conversation` when it named one (the upstream got the history instead). True when it changed.
 */
export function nameStoredIds(response: Record<string, unknown>, context: RewriteContext): boolean {
  let changed = false;
  if (context.responseId !== undefined && response.id !== context.responseId) {
    response.id = context.responseId;
    changed = true;
  }
  if (context.previousResponseId !== undefined && response.previous_response_id !== context.previousResponseId) {
    response.previous_response_id = context.previousResponseId;
    changed = true;
  }
  if (context.conversationId !== undefined && (response.conversation as { id?: unknown } | null | undefined)?.id !== context.conversationId) {
    response.conversation = { id: context.conversationId };
    changed = true;
  }
  return changed;
}

/**
 * `background: true` is answered in the foreground: the upstream would answer at once with a
 * `queued` response the gateway stores (and bills) as it is, and that polling by
 * `GET /v1/responses/{id}` would find queued for ever; the client gets the finished answer
 * (`background: false`) at once, as a converted request does.
 */
function answerInForeground(request: PassthroughRequest): PassthroughRequest | undefined {
  if (request.body.background === undefined || request.body.background === false) return undefined;
  const { background: _background, ...body } = request.body;
  return { body, raw: JSON.stringify(body), stream: request.stream };
}

/** How a compaction item the gateway wrote appears in a body (its `encrypted_content` prefix): the rare body that has one is read. */
const GATEWAY_COMPACTION = '"gwcmp:';

/**
 * A compaction item the gateway wrote (a conversation compacted on a converted route, then sent
 * to a Responses upstream, e.g. after a switch to an OpenAI model) is a user message holding its
 * summary, as on a conversion: OpenAI cannot decrypt it and refuses the request. OpenAI's own
 * compaction items go as they came.
 */
function readGatewayCompactions(request: PassthroughRequest): PassthroughRequest | undefined {
  const input = request.body.input;
  if (!Array.isArray(input) || !request.raw.includes(GATEWAY_COMPACTION)) return undefined;
  let changed = false;
  const items = input.map((item: unknown) => {
    const compaction = item as { type?: unknown; encrypted_content?: unknown } | null;
    if (compaction?.type !== 'compaction' || typeof compaction.encrypted_content !== 'string') return item;
    const summary = readCompactionSummary(compaction.encrypted_content);
    if (summary === undefined) return item;
    changed = true;
    return { type: 'message', role: 'user', content: [{ type: 'input_text', text: compactionSummaryText(summary) }] };
  });
  if (!changed) return undefined;
  const body = { ...request.body, input: items };
  return { body, raw: JSON.stringify(body), stream: request.stream };
}

/** An image item's id that carries a Gemini signature (see create-id.ts imageItemId). */
const CARRIED_IMAGE_ID = `ig_${CARRIED_ID_PREFIX}`;

/**
 * An input item with the gateway's carried ids (`gwpm_…`: a Gemini call's id with its thought
 * signature, `ig_gwpm_…`: a Gemini image's, which a client switching models sends on) back to
 * its own: OpenAI refuses a `call_id` or an item `id` over 64 characters and cannot read the
 * signature. Calls and outputs keep pairing. The item itself when it has none.
 */
function withOwnIds(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const callId = typeof item.call_id === 'string' && item.call_id.startsWith(CARRIED_ID_PREFIX) ? readToolId(item.call_id).id : undefined;
  const id = typeof item.id === 'string' && item.id.startsWith(CARRIED_IMAGE_ID) ? readToolId(item.id.slice(3)).id : item.type === 'function_call' ? ownCallItemId(item.id) : undefined;
  if (callId === undefined && id === undefined) return item;
  return { ...item, ...(callId === undefined ? {} : { call_id: callId }), ...(id === undefined ? {} : { id }) };
}

/** A call item's id the gateway made from a carried call id (`fc_gwpm_…`, ~190 characters) as the call's own would be: its OpenAI item id, or `fc_` + its id. */
function ownCallItemId(id: unknown): string | undefined {
  if (typeof id !== 'string' || !id.startsWith(`fc_${CARRIED_ID_PREFIX}`)) return undefined;
  const own = readToolId(id.slice(3));
  return own.itemId ?? functionCallItemIdFor(own.id);
}

/**
 * A reasoning item another vendor's reasoning came to the client as (the gateway's `rs_gw…` id,
 * its data carried in `encrypted_content` as `gwpm:…`, or none), which a client switching to an
 * OpenAI model sends on: OpenAI decrypts only its own encrypted_content ("The encrypted content
 * for item rs_… could not be verified") and looks an item without it up by id, which it never had
 * ("Item with id 'rs_…' not found"). Such items are taken out, as the converted route leaves them
 * out; OpenAI's own reasoning carried through (`encrypted` in the value) goes back as OpenAI wrote
 * it. Undefined to take the item out, the item itself when it is not one.
 */
function openAIReasoning(item: unknown): unknown {
  if (!isRecord(item) || item.type !== 'reasoning') return item;
  const content = item.encrypted_content;
  if (typeof content === 'string') {
    if (!CARRIED_PREFIXES.some((prefix) => content.startsWith(prefix))) return item;
    const carried = readCarried(content);
    return carried?.encrypted === undefined ? undefined : { ...item, ...(carried.id === undefined ? {} : { id: carried.id }), encrypted_content: carried.encrypted };
  }
  // A made-up id (createReasoningItemId: `rs_gw` + 24 hex) names no item anywhere; a stored response's items are longer.
  return typeof item.id === 'string' && /^rs_gw[0-9a-f]{24}$/.test(item.id) ? undefined : item;
}

/** The input with every carried id back to its own (see withOwnIds) and other vendors' reasoning out (openAIReasoning); undefined when none was. */
function restoreCarriedIds(request: PassthroughRequest): (PassthroughRequest & { adapted?: string[] }) | undefined {
  const input = request.body.input;
  if (!Array.isArray(input) || (!request.raw.includes(CARRIED_ID_PREFIX) && !request.raw.includes('"rs_gw'))) return undefined;
  let dropped = 0;
  const items: unknown[] = [];
  for (const item of input) {
    const reasoning = openAIReasoning(item);
    if (reasoning === undefined) dropped += 1;
    else items.push(withOwnIds(reasoning));
  }
  if (dropped === 0 && items.every((item, i) => item === input[i])) return undefined;
  const body = { ...request.body, input: items };
  const prepared: PassthroughRequest & { adapted?: string[] } = { body, raw: JSON.stringify(body), stream: request.stream };
  if (dropped > 0) prepared.adapted = [`reasoning=dropped(${dropped})`];
  return prepared;
}

/**
 * A passthrough body as the upstream must get it: OpenRouter's own fields fitted to an upstream
 * that is not OpenRouter, answered in the foreground, the gateway's compaction items read, its
 * carried ids restored.
 */
function prepareResponses(request: PassthroughRequest, target?: PassthroughTarget): (PassthroughRequest & { adapted?: string[] }) | undefined {
  const fitted = withoutOpenRouterFields(request, target);
  const base = fitted ?? request;
  const foreground = answerInForeground(base);
  const compacted = readGatewayCompactions(foreground ?? base) ?? foreground;
  const restored = restoreCarriedIds(compacted ?? base);
  const out = restored ?? compacted ?? fitted;
  const adapted = [...(fitted?.adapted ?? []), ...(restored?.adapted ?? [])];
  return out && adapted.length > 0 ? { ...out, adapted } : out;
}

/** Responses passthrough: a stored answer's stream names the gateway's response id, not the upstream's; background requests are answered at once. */
export const responsesPassthrough: PassthroughRules = {
  read: readResponsesRequest,
  capOutput: (body, max) => capFields(body, ['max_output_tokens'], max),
  prepare: prepareResponses,
  modelFallbacks: 'models',
  rewrite: withResponseId,
};
