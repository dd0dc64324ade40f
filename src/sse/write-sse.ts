import type { SseRecord } from './parse-sse.ts';

/** `event: <name>\ndata: ` by event name, made once per name: a record is then three pieces, not six. */
const heads = new Map<string, string>();
const MAX_HEADS = 64;

function headOf(event: string): string {
  let head = heads.get(event);
  if (head === undefined) {
    head = `event: ${event}\ndata: `;
    // Names come from the formats' encoders (a few each); a relayed upstream's own names are bounded too.
    if (heads.size < MAX_HEADS) heads.set(event, head);
  }
  return head;
}

/** Frames one SSE record: optional `event:` line, one `data:` line per line of data, blank line. */
export function formatSse(record: SseRecord): string {
  const data = record.data;
  if (data.indexOf('\n') === -1) return (record.event === undefined ? 'data: ' : headOf(record.event)) + data + '\n\n';
  let out = record.event === undefined ? '' : `event: ${record.event}\n`;
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Frames records into one piece of SSE text: the one writer of every stream the gateway makes. */
export function writeSse(records: readonly SseRecord[]): string {
  if (records.length === 1) return formatSse(records[0]);
  let out = '';
  for (let i = 0; i < records.length; i += 1) out += formatSse(records[i]);
  return out;
}

/** A record whose data is a JSON value (what every format's encoder builds). */
export function jsonRecord(event: string | undefined, value: unknown): SseRecord {
  const data = JSON.stringify(value);
  return event === undefined ? { data } : { event, data };
}
