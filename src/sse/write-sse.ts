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

/**
 * A record whose data is one line of JSON text (JSON.stringify escapes every line break), made
 * by an encoder: the writer frames it without searching its data for a line break, a search that
 * first copies a data string built by concatenation into one piece (V8 flattens it), then copied
 * again into the output. Read like any record ({ event, data }, keys in that order).
 */
export class JsonLine implements SseRecord {
  declare event?: string;
  declare data: string;

  constructor(event: string | undefined, data: string) {
    if (event !== undefined) this.event = event;
    this.data = data;
  }
}

/** The Content-Type of an SSE answer. */
export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** Frames one SSE record: optional `event:` line, one `data:` line per line of data, blank line. */
export function formatSse(record: SseRecord): string {
  const data = record.data;
  if (record instanceof JsonLine || data.indexOf('\n') === -1) return (record.event === undefined ? 'data: ' : headOf(record.event)) + data + '\n\n';
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
  return new JsonLine(event, JSON.stringify(value));
}
