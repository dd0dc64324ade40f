import type { PassthroughRules, RewriteContext, WireRecord } from '../formats/index.ts';
import { containsSecret, hasSecrets, redactSecrets } from '../util/index.ts';
import { quotedByteFinder, quotedFinder } from '../util/index.ts';

const findError = quotedFinder('"error"');

/**
 * From this many records in one chunk (a burst), one native search of the chunk's bytes for the
 * keys is cheaper than the per-record check (a Buffer search costs ~0.3 µs to start, the string
 * check of one record ~0.1 µs).
 */
const SCAN_CHUNK_FROM = 4;

/** The record with any configured upstream key redacted, or undefined when it holds none. Only an error record (every format's has an `"error"` key) may quote the key back. */
function redactedRecord(record: WireRecord): WireRecord | undefined {
  const data = record.data;
  if (findError(data) === -1 || !containsSecret(data)) return undefined;
  return record.event === undefined ? { data: redactSecrets(data) } : { event: record.event, data: redactSecrets(data) };
}

/** A search for each format's marker, made once per marker. */
const markerFinders = new Map<string, (bytes: Buffer, from?: number) => number>();

/**
 * Which records of a chunk hold the format's marker (PassthroughRules.marker), from one search of
 * the chunk's bytes per record that holds it rather than one search per record; `ends` says where
 * each of its `count` records ends in `bytes`. Undefined (every record is asked) for a chunk of
 * few records, one whose ends are not known, or a format without a marker. A record's bytes hold
 * its data's text (a marker has no line break), so an unmarked record's data cannot hold it.
 */
export function markedRecords(bytes: Buffer, count: number, ends: readonly number[] | undefined, rules: PassthroughRules): boolean[] | undefined {
  const { marker } = rules;
  if (marker === undefined || ends === undefined || count < SCAN_CHUNK_FROM || ends.length !== count || ends[count - 1] !== bytes.length) return undefined;
  let find = markerFinders.get(marker);
  if (find === undefined) {
    find = quotedByteFinder(marker);
    markerFinders.set(marker, find);
  }
  const marked = new Array<boolean>(count);
  for (let i = 0; i < count; i += 1) marked[i] = false;
  let record = 0;
  let at = find(bytes);
  while (at !== -1) {
    while (ends[record] <= at) record += 1;
    marked[record] = true;
    record += 1;
    if (record === ends.length) break;
    at = find(bytes, ends[record - 1]);
  }
  return marked;
}

/** Per passed record: undefined sends it as it came, null leaves it out, a record replaces it. */
export type RecordChanges = Array<WireRecord | null | undefined>;

/**
 * What a passthrough changes in these records, or undefined when they all go as they came (the
 * bytes pass through untouched): an error record quoting a configured upstream key is redacted,
 * and the format's own rewrites apply (Chat drops the usage chunk the client did not ask for;
 * Responses names the gateway's response id for a stored answer). `bytes`, when given, are the
 * records' bytes as received: for a chunk of many records, one search of them for the keys tells
 * whether any record needs a look. `marked` (markedRecords) names the records the format's rewrite
 * may change; absent, it is asked of every record.
 */
export function rewritePassedRecords(records: WireRecord[], rules: PassthroughRules, context: RewriteContext, bytes?: Buffer, marked?: boolean[]): RecordChanges | undefined {
  const rewrite = marked && !marked.includes(true) ? undefined : rules.rewrite;
  const redact = hasSecrets() && (bytes === undefined || records.length < SCAN_CHUNK_FROM || containsSecret(bytes));
  if (!rewrite && !redact) return undefined;
  let changes: RecordChanges | undefined;
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i];
    const rewritten = rewrite && marked?.[i] !== false ? rewrite(record, context) : undefined;
    const change = rewritten === null ? null : ((redact ? redactedRecord(rewritten ?? record) : undefined) ?? rewritten);
    if (change === undefined) continue;
    changes ??= new Array<WireRecord | null | undefined>(records.length);
    changes[i] = change;
  }
  return changes;
}

/** The records as they go to the client after `changes`. */
export function changedRecords(records: WireRecord[], changes: RecordChanges | undefined): WireRecord[] {
  if (!changes) return records;
  const out: WireRecord[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const change = changes[i];
    if (change !== null) out.push(change ?? records[i]);
  }
  return out;
}
