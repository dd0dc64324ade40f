import type { RecordEnd, WireRecord } from '../types.ts';

/** Messages: `message_stop` (or an `error` event) is the last record. */
export function tellMessagesRecordEnd(record: WireRecord): RecordEnd | undefined {
  return record.event === 'message_stop' || record.event === 'error' ? 'complete' : undefined;
}
