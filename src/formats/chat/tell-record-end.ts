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

/** What a record's start says: `[DONE]` is the last record, an error record ends the answer. */
function tellByStart(data: string): RecordEnd | undefined {
  if (isBareWord(data, '[DONE]')) return 'complete';
  return startsWithKey(data, '"error"') ? 'finished' : undefined;
}

/** Chat: `[DONE]` is the last record; a chunk with a finish_reason (or an error) ends the answer, usage may follow. */
export function tellChatRecordEnd(record: WireRecord): RecordEnd | undefined {
  const data = record.data;
  return tellByStart(data) ?? (finishReasonSet(data) ? 'finished' : undefined);
}

const NULL_VALUE = ':null';

/**
 * How many `"finish_reason"` keys in `text` are not followed by `:null` at once: every one that
 * could name a reason (a string, or any spacing), an upper bound on the reasons set.
 */
function reasonsMaybeSet(text: string): number {
  // quotedFinder, not text.indexOf('"finish_reason"'): a search led by `"` is slow over JSON text (the quote is everywhere).
  let count = 0;
  for (let at = findFinishReason(text); at !== -1; at = findFinishReason(text, at + 15)) {
    if (!text.startsWith(NULL_VALUE, at + 15)) count += 1;
  }
  return count;
}

/**
 * A burst's ends at one look: every Chat chunk carries `"finish_reason":null`, so the search of
 * `tellChatRecordEnd` is run only where the chunk's text has a key that may set a reason. Each
 * record's data is a piece of `text` (its lines, without the `data:` prefix), so its keys are
 * among the text's; the records from the end are searched until they hold all the text's
 * may-set keys, and the ones before hold none.
 */
export function tellChatChunkEnds(text: string, records: readonly WireRecord[]): Array<RecordEnd | undefined> {
  const ends = new Array<RecordEnd | undefined>(records.length);
  let left = reasonsMaybeSet(text);
  for (let i = records.length - 1; i >= 0; i -= 1) {
    const data = records[i].data;
    if (left > 0) {
      left -= reasonsMaybeSet(data);
      ends[i] = tellChatRecordEnd(records[i]);
    } else ends[i] = tellByStart(data);
  }
  return ends;
}
