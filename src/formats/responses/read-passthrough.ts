import type { SseRecord } from '../../sse/index.ts';
import { isRecord, readRecord, readString, tryParseJson } from '../shared/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { failedResponseRecord } from './encode-error.ts';
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

/** What an upstream's `error` event said: OpenAI's code (its own vocabulary) and message. */
export interface UpstreamStreamError {
  code: string | null;
  message: string;
}

/** A usage tap that also remembers the last sequence number, for an error record after it. */
export interface ResponsesUsageTap extends UsageTap {
  readonly lastSequenceNumber: number;
  /** The last `error` event, until a lifecycle end (`response.failed`, …) follows it. */
  readonly unfinishedError: UpstreamStreamError | undefined;
}

class SequenceTrackingUsageTap implements ResponsesUsageTap {
  info: PassthroughInfo = {};
  lastSequenceNumber = -1;
  unfinishedError: UpstreamStreamError | undefined = undefined;

  push(record: SseRecord): void {
    const at = record.data.lastIndexOf('"sequence_number":');
    if (at !== -1) {
      const value = Number.parseInt(record.data.slice(at + 18, at + 32).trimStart(), 10);
      if (Number.isFinite(value)) this.lastSequenceNumber = value;
    }
    const event = eventName(record);
    if (event === 'error') {
      this.unfinishedError = readStreamError(record);
      return;
    }
    if (event === undefined || !READ_EVENTS.has(event)) return; // only these records are parsed
    this.unfinishedError = undefined;
    const data = tryParseJson(record.data);
    const response = isRecord(data) ? readRecord(data, 'response') : undefined;
    if (!response) return;
    const info = readResponsesPassthrough(response);
    this.info = { ...this.info, ...info };
  }
}

/** An `error` event's code and message: flat (OpenAI's) or nested under `error` (as the openai SDK also reads it). */
function readStreamError(record: SseRecord): UpstreamStreamError {
  const data = tryParseJson(record.data);
  const flat = isRecord(data) ? data : {};
  const nested = readRecord(flat, 'error') ?? {};
  return { code: readString(flat, 'code') ?? readString(nested, 'code') ?? null, message: readString(flat, 'message') ?? readString(nested, 'message') ?? '' };
}

/** Reads id, model and usage from a same-format stream, parsing only the lifecycle records. */
export function createResponsesUsageTap(): ResponsesUsageTap {
  return new SequenceTrackingUsageTap();
}

/** The `sequence_number` of a record the gateway adds after a passthrough's records (an error): one past the last the tap saw, 0 without a tap. */
export function nextSequenceNumber(tap: UsageTap | undefined): number {
  return tap instanceof SequenceTrackingUsageTap ? tap.lastSequenceNumber + 1 : 0;
}

/**
 * A passthrough whose upstream ended right after an `error` event (no `response.failed`) ends as
 * OpenAI ends a failed stream: `response.failed` with that error's code. Codex reads a failure
 * only there (an `error` event alone is a stream that closed early, retried five times whatever
 * its code), and stops or retries by the code, as it does with OpenAI.
 */
export function finishResponsesPassthrough(tap: UsageTap): SseRecord[] | undefined {
  if (!(tap instanceof SequenceTrackingUsageTap) || !tap.unfinishedError) return undefined;
  return [failedResponseRecord(tap.unfinishedError, tap.lastSequenceNumber + 1, tap.info)];
}
