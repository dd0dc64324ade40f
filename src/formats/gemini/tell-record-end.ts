import type { RecordEnd, WireRecord } from '../types.ts';
import { quotedFinder } from '../../util/index.ts';

const findFinish = quotedFinder('"finishReason"');

/**
 * Without parsing: an error element ends the stream; a record with a `finishReason` finishes the
 * answer (Google sends no record after it but may, so it is not the last by itself).
 */
export function tellGeminiRecordEnd(record: WireRecord): RecordEnd | undefined {
  if (record.data.startsWith('{"error"')) return 'complete';
  return findFinish(record.data) !== -1 ? 'finished' : undefined;
}
