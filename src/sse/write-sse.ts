import type { SseRecord } from './parse-sse.ts';

/** Frames one SSE record: optional `event:` line, one `data:` line per line of data, blank line. */
export function formatSse(record: SseRecord): string {
  let out = record.event === undefined ? '' : `event: ${record.event}\n`;
  const data = record.data;
  if (data.indexOf('\n') === -1) return `${out}data: ${data}\n\n`;
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Frames an event whose data is a JSON value. */
export function formatSseJson(event: string | undefined, value: unknown): string {
  const data = JSON.stringify(value);
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
