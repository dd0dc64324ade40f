import { quotedFinder } from '../../util/index.ts';
import type { RecordEnd, WireRecord } from '../types.ts';
import { isBareWord, startsWithKey } from '../shared/index.ts';

const FINISH_REASON = /"finish_reason"\s*:\s*"/;
const findFinishReason = quotedFinder('"finish_reason"');

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** `"finish_reason"` followed by a string (not null), without a regex over every chunk. */
function finishReasonSet(data: string): boolean {
  const at = findFinishReason(data);
  if (at === -1) return false;
  let i = at + 15;
  while (i < data.length && (isSpace(data.charCodeAt(i)) || data.charCodeAt(i) === 58 /* : */)) i += 1;
  return data.charCodeAt(i) === 34 /* " */ || (findFinishReason(data, i) !== -1 && FINISH_REASON.test(data.slice(i)));
}

/**
 * Chat: `[DONE]` is the last record; a chunk with a finish_reason (or an error) ends the answer,
 * usage may follow. Without `finishes` only `[DONE]` is looked for (a search of every chunk less).
 */
export function tellChatRecordEnd(record: WireRecord, finishes = true): RecordEnd | undefined {
  const data = record.data;
  if (isBareWord(data, '[DONE]')) return 'complete';
  if (!finishes) return undefined;
  if (startsWithKey(data, '"error"') || finishReasonSet(data)) return 'finished';
  return undefined;
}
