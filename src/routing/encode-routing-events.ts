import type { WireFormat } from '../ir/types.ts';
import type { SseRecord } from '../sse/index.ts';
import type { FallbackInfo, RoutingInfo } from './types.ts';

/** The identity a Chat routing chunk borrows from the stream it precedes. */
export interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

function routingPayload(routing: RoutingInfo): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    mode: routing.mode,
    requested_model: routing.requested,
    resolved_model: routing.resolved,
    provider: routing.resolved.slice(0, routing.resolved.indexOf('/')),
    attempts: routing.attempts,
  };
  if (routing.strategy) payload.strategy = routing.strategy;
  return payload;
}

function fallbackPayload(fallback: FallbackInfo): Record<string, unknown> {
  return { used: true, provider: fallback.provider, resolved_model: fallback.model, from: fallback.from, reason: fallback.reason, discount: fallback.discount };
}

/**
 * The `event: routing` and `event: fallback` records for a client of `format` (spec §6.4).
 * The openai SDK hands any event that is not `thread.*` to the caller as a chunk, so on Chat
 * each one is a valid `chat.completion.chunk` with `choices: []` (what ChatCompletionStream
 * already accepts for usage chunks) and the details under `routing` / `fallback`. Messages
 * and Responses get `{type, routing|fallback}` objects, which the SDK stream helpers skip.
 * No payload has an `error` key: the openai SDK would throw on it.
 */
export function encodeRoutingEvents(format: WireFormat, routing: RoutingInfo, fallback: FallbackInfo | undefined, identity: ChunkIdentity): SseRecord[] {
  const events: Array<[string, Record<string, unknown>]> = [['routing', routingPayload(routing)]];
  if (fallback) events.push(['fallback', fallbackPayload(fallback)]);
  return events.map(([name, details]) => {
    const data =
      format === 'chat'
        ? { id: identity.id, object: 'chat.completion.chunk', created: identity.created, model: identity.model, choices: [], [name]: details }
        : { type: name, [name]: details };
    return { event: name, data: JSON.stringify(data) };
  });
}

/** The first record a client's SDK needs before anything else: Responses `response.created`. */
function anchorIndex(format: WireFormat, records: SseRecord[]): number {
  if (format !== 'responses') return 0;
  const at = records.findIndex((r) => (r.event ?? typeTag(r.data)) === 'response.created');
  return at === -1 ? -1 : at + 1;
}

function typeTag(data: string): string | undefined {
  return /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(data)?.[1];
}

/** Chat: the id, created and model of the first chunk, so the SDK's snapshot stays consistent. */
function chunkIdentity(record: SseRecord | undefined, fallbackModel: string): ChunkIdentity {
  const identity: ChunkIdentity = { id: 'chatcmpl-routing', created: Math.floor(Date.now() / 1000), model: fallbackModel };
  if (!record) return identity;
  try {
    const chunk = JSON.parse(record.data) as Record<string, unknown>;
    if (typeof chunk.id === 'string') identity.id = chunk.id;
    if (typeof chunk.created === 'number') identity.created = chunk.created;
    if (typeof chunk.model === 'string') identity.model = chunk.model;
  } catch {
    // not JSON: keep the defaults
  }
  return identity;
}

/**
 * Inserts routing events into the first records of a stream: before the first record on
 * Chat and Messages (the Anthropic SDK ignores unknown events before message_start), right
 * after `response.created` on Responses (the openai ResponseStream requires it first).
 * Returns undefined when the anchor is not among these records yet.
 */
export function insertRoutingEvents(format: WireFormat, records: SseRecord[], routing: RoutingInfo, fallback: FallbackInfo | undefined): SseRecord[] | undefined {
  const at = anchorIndex(format, records);
  if (at === -1 || records.length === 0) return undefined;
  const identity = chunkIdentity(format === 'chat' ? records[0] : undefined, routing.resolved);
  return [...records.slice(0, at), ...encodeRoutingEvents(format, routing, fallback, identity), ...records.slice(at)];
}
