import type { RecordEnd, WireRecord } from '../types.ts';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** Responses: the completed, incomplete or failed lifecycle event (or an `error` event) is the last record. */
export function tellResponsesRecordEnd(record: WireRecord): RecordEnd | undefined {
  return record.event !== undefined && TERMINAL.has(record.event) ? 'complete' : undefined;
}
