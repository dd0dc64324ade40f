import type { RoutingEvent } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';

/** A routing event for a Messages client (spec §6.4): a typed object the SDK's stream helpers skip. */
export function encodeMessagesRoutingEvent(event: RoutingEvent): SseRecord {
  return jsonRecord(event.name, { type: event.name, [event.name]: event.details });
}

/** Routing events go before the first record (the Anthropic SDK ignores unknown events before message_start). */
export function insertMessagesRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[]): SseRecord[] | undefined {
  if (records.length === 0) return undefined;
  return [...events.map(encodeMessagesRoutingEvent), ...records];
}
