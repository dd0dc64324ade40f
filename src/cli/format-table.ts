import { terminalText } from '../util/index.ts';

/** A number as plain digits: String() writes 1e-7 (one embedding call's USD) and 1e21 in exponent notation. */
function plainNumber(value: number): string {
  const text = String(value);
  return /e/i.test(text) && Number.isFinite(value) ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : text;
}

function cellText(value: unknown): string {
  return typeof value === 'number' ? plainNumber(value) : String(value);
}

/** Renders rows as an aligned text table with a header line. */
export function formatTable(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : terminalText(cellText(c)))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}

/** A time field of an OpenAI-shaped record (`created_at`, `expires_at`: Unix seconds) as the listings write times (`2026-11-30T11:02:54Z`). */
function fieldText(key: string, value: unknown): string {
  if (value === null) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  if (key.endsWith('_at') && typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1e11) {
    return new Date(value * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return cellText(value);
}

/** One record as `key  value` lines (objects as JSON, times as ISO dates), each value kept on its own line; --json keeps the record as it is. */
export function formatFields(record: object): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(([key, value]: [string, unknown]) => `${key.padEnd(width)}  ${terminalText(fieldText(key, value))}`)
    .join('\n');
}

/** JSON with the characters JSON.stringify leaves raw but a terminal acts on (DEL, C1, bidi) escaped: the same value. */
export function printJson(value: unknown): void {
  const text = JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  process.stdout.write(text + '\n');
}

/** Prints lines; whatever a line holds, only its line breaks reach the terminal as controls. */
export function print(line: string): void {
  process.stdout.write(line.split('\n').map(terminalText).join('\n') + '\n');
}
