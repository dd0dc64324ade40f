import type { SseRecord } from '../../sse/index.ts';
import { isRecord, readRecord, readString, tryParseJson } from '../shared/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { decodeResponseUsage } from './map-usage.ts';

/** Reads id, model and usage from a same-format response object. */
export function readResponsesPassthrough(body: unknown): PassthroughInfo {
  const response = isRecord(body) ? body : {};
  const info: PassthroughInfo = {};
  const id = readString(response, 'id');
  const model = readString(response, 'model');
  const usage = decodeResponseUsage(response);
  if (id) info.id = id;
  if (model) info.model = model;
  if (usage) info.usage = usage;
  const status = readString(response, 'status');
  if (status) info.finishReason = status;
  return info;
}

const READ_EVENTS = new Set(['response.created', 'response.completed', 'response.incomplete', 'response.failed']);

/** The event name of a record without parsing its JSON when the `event:` line is there. */
function eventName(record: SseRecord): string | undefined {
  if (record.event !== undefined) return record.event;
  const match = /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(record.data);
  return match?.[1];
}

/** A usage tap that also remembers the last sequence number, for an error record after it. */
export interface ResponsesUsageTap extends UsageTap {
  readonly lastSequenceNumber: number;
}

class SequenceTrackingUsageTap implements ResponsesUsageTap {
  info: PassthroughInfo = {};
  lastSequenceNumber = -1;

  push(record: SseRecord): void {
    const at = record.data.lastIndexOf('"sequence_number":');
    if (at !== -1) {
      const value = Number.parseInt(record.data.slice(at + 18, at + 32).trimStart(), 10);
      if (Number.isFinite(value)) this.lastSequenceNumber = value;
    }
    const event = eventName(record);
    if (event === undefined || !READ_EVENTS.has(event)) return; // only these records are parsed
    const data = tryParseJson(record.data);
    const response = isRecord(data) ? readRecord(data, 'response') : undefined;
    if (!response) return;
    const info = readResponsesPassthrough(response);
    this.info = { ...this.info, ...info };
  }
}

/** Reads id, model and usage from a same-format stream, parsing only the lifecycle records. */
export function createResponsesUsageTap(): ResponsesUsageTap {
  return new SequenceTrackingUsageTap();
}

/** The `sequence_number` of a record the gateway adds after a passthrough's records (an error): one past the last the tap saw, 0 without a tap. */
export function nextSequenceNumber(tap: UsageTap | undefined): number {
  return tap instanceof SequenceTrackingUsageTap ? tap.lastSequenceNumber + 1 : 0;
}
