import type { SseRecord } from '../sse/index.ts';
import { containsSecret, hasSecrets, redactSecrets } from '../util/redact-secrets.ts';
import { quotedFinder } from '../util/find-quoted.ts';

const findError = quotedFinder('"error"');
const findUsageObject = quotedFinder('"usage":{');
const findEmptyChoices = quotedFinder('"choices":[]');

/** An upstream error record (any format): the only kind that may quote the gateway's upstream key back. */
function isErrorRecord(record: SseRecord): boolean {
  const event = record.event;
  return event === undefined ? findError(record.data) !== -1 : event === 'error' || event === 'response.failed';
}

/** The record with any configured upstream key redacted, or undefined when it holds none. */
function redactedRecord(record: SseRecord): SseRecord | undefined {
  if (!isErrorRecord(record) || !containsSecret(record.data)) return undefined;
  return { event: record.event, data: redactSecrets(record.data) };
}

/** Chat's usage chunk (`choices: []` with a usage object): dropped when the gateway asked for usage the client did not. */
function isUsageOnlyChunk(record: SseRecord): boolean {
  const data = record.data;
  return data.charCodeAt(0) === 123 /* { */ && findUsageObject(data) !== -1 && findEmptyChoices(data) !== -1;
}

/** Responses events that carry the whole response object, and so its id. */
const RESPONSE_OBJECT_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.completed', 'response.incomplete', 'response.failed']);

/** A Responses lifecycle record with the gateway's response id instead of the upstream's; undefined when it has none. */
function withResponseId(record: SseRecord, responseId: string): SseRecord | undefined {
  if (record.event === undefined || !RESPONSE_OBJECT_EVENTS.has(record.event)) return undefined;
  let payload: { response?: { id?: unknown } };
  try {
    payload = JSON.parse(record.data) as { response?: { id?: unknown } };
  } catch {
    return undefined;
  }
  const response = payload?.response;
  if (!response || typeof response !== 'object' || typeof response.id !== 'string' || response.id === responseId) return undefined;
  response.id = responseId;
  return { event: record.event, data: JSON.stringify(payload) };
}

/**
 * The records a passthrough sends on, or undefined when they go as they came (the bytes pass
 * through untouched): a usage chunk the client did not ask for is dropped, an error record
 * quoting a configured upstream key is redacted, and with `responseId` (a Responses answer
 * the gateway stores) the response object carries the gateway's id, not the upstream's.
 */
export function rewritePassedRecords(records: SseRecord[], stripUsageChunk: boolean, responseId?: string): SseRecord[] | undefined {
  let out: SseRecord[] | undefined;
  const redact = hasSecrets();
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i];
    if (stripUsageChunk && isUsageOnlyChunk(record)) {
      out ??= records.slice(0, i);
      continue;
    }
    const clean = (redact ? redactedRecord(record) : undefined) ?? (responseId === undefined ? undefined : withResponseId(record, responseId));
    if (clean) out ??= records.slice(0, i);
    out?.push(clean ?? record);
  }
  return out;
}
