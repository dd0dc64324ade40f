import type { RoutingEvent } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';

/** A routing event for a Responses client (spec §6.4): a typed object the SDK's stream helpers skip. */
export function encodeResponsesRoutingEvent(event: RoutingEvent): SseRecord {
  return jsonRecord(event.name, { type: event.name, [event.name]: event.details });
}

/** The event name of a record, from its `event:` line or the head of its data. */
function eventName(record: SseRecord): string | undefined {
  return record.event ?? /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(record.data)?.[1];
}

/**
 * Routing events go right after `response.created` (the openai ResponseStream requires it
 * first); undefined while it has not come.
 */
export function insertResponsesRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[]): SseRecord[] | undefined {
  const at = records.findIndex((record) => eventName(record) === 'response.created');
  if (at === -1) return undefined;
  return [...records.slice(0, at + 1), ...events.map(encodeResponsesRoutingEvent), ...records.slice(at + 1)];
}
