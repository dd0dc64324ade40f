import type { RoutingEvent } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { isRecord, nowSeconds, readNumber, readString, tryParseJson } from '../shared/index.ts';

const CHAT_CHUNK = 'chat.completion.chunk';

/** The identity a Chat routing chunk borrows from the stream it precedes. */
interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

/**
 * A routing event for a Chat client (spec §6.4): the openai SDK hands any event that is not
 * `thread.*` to the caller as a chunk, so it is a valid `chat.completion.chunk` with
 * `choices: []` (what ChatCompletionStream already accepts for usage chunks) and the details
 * under `routing` / `fallback`. No `error` key: the openai SDK would throw on it.
 */
export function encodeChatRoutingEvent(event: RoutingEvent, identity: ChunkIdentity, object = CHAT_CHUNK): SseRecord {
  return jsonRecord(event.name, { id: identity.id, object, created: identity.created, model: identity.model, choices: [], [event.name]: event.details });
}

/** The id, created and model of the stream's first chunk, so the SDK's snapshot stays consistent. */
function identityOf(record: SseRecord, fallbackModel: string): ChunkIdentity {
  const chunk = tryParseJson(record.data);
  const body = isRecord(chunk) ? chunk : {};
  return { id: readString(body, 'id') ?? 'chatcmpl-routing', created: readNumber(body, 'created') ?? nowSeconds(), model: readString(body, 'model') ?? fallbackModel };
}

/**
 * Routing events go before the first chunk; undefined while there is none yet. `object` is the
 * chunks' own (legacy Completions streams, whose chunks are `text_completion`, share the shape).
 */
export function insertChatRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[], object = CHAT_CHUNK): SseRecord[] | undefined {
  if (records.length === 0) return undefined;
  const resolved = events.find((e) => e.name === 'routing')?.details.resolved_model;
  const identity = identityOf(records[0], typeof resolved === 'string' ? resolved : '');
  return [...events.map((event) => encodeChatRoutingEvent(event, identity, object)), ...records];
}
