import type { RoutingEvent } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';

/**
 * A routing event for a Responses client (spec §6.4): `event: routing` (or `fallback`) whose
 * object is typed `keepalive`, with the details under `routing` (`fallback`). openai 7's
 * `ResponseStream` throws on an event type it does not know ("Unhandled response stream event")
 * and skips a `keepalive`, OpenAI's own transport event, as openai 6 skipped any type. It carries
 * `sequence_number` as every Responses event does (the SDK's types declare it;
 * `responses.stream({ response_id, starting_after })` compares it): the number of the
 * `response.created` it follows, so the upstream's own numbering goes on as it came.
 */
export function encodeResponsesRoutingEvent(event: RoutingEvent, sequenceNumber = 0): SseRecord {
  return jsonRecord(event.name, { type: 'keepalive', sequence_number: sequenceNumber, [event.name]: event.details });
}

/** The event name of a record, from its `event:` line or the head of its data. */
function eventName(record: SseRecord): string | undefined {
  return record.event ?? /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(record.data)?.[1];
}

/** A record's `sequence_number`, read without parsing it (0 when it has none). */
function sequenceNumberOf(record: SseRecord): number {
  const match = /"sequence_number"\s*:\s*(\d+)/.exec(record.data);
  return match ? Number(match[1]) : 0;
}

/**
 * Routing events go right after `response.created` (the openai ResponseStream requires it
 * first); undefined while it has not come.
 */
export function insertResponsesRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[]): SseRecord[] | undefined {
  const at = records.findIndex((record) => eventName(record) === 'response.created');
  if (at === -1) return undefined;
  const sequenceNumber = sequenceNumberOf(records[at]);
  return [...records.slice(0, at + 1), ...events.map((event) => encodeResponsesRoutingEvent(event, sequenceNumber)), ...records.slice(at + 1)];
}
