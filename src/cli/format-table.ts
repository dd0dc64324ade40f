import { terminalText } from '../util/index.ts';

/** A number as plain digits: String() writes 1e-7 (one embedding call's USD) and 1e21 in exponent notation. */
function plainNumber(value: number): string {
  const text = String(value);
  return /e/i.test(text) && Number.isFinite(value) ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : text;
}

function cellText(value: unknown): string {
  return typeof value === 'number' ? plainNumber(value) : String(value);
}

type Row = Array<string | number | null | undefined>;

function cellsOf(rows: readonly Row[]): string[][] {
  return rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : terminalText(cellText(c)))));
}

function naturalWidths(headers: readonly string[], cells: readonly string[][]): number[] {
  return headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
}

/** Renders rows as an aligned text table with a header line. */
export function formatTable(headers: string[], rows: Row[]): string {
  const cells = cellsOf(rows);
  const widths = naturalWidths(headers, cells);
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}

/** How a table may be narrowed to a terminal's width (fitTable). */
export interface TableFit {
  /** Free-text columns, by header, that may be cut with '…' (the widest first), to no fewer than 8 characters (or their header's). */
  shrink?: readonly string[];
  /** Columns, by header, left out in this order while the table, its free text cut, is still too wide. */
  drop?: readonly string[];
}

/** A free-text column is cut to no fewer characters than this (or its header's). */
const MIN_CUT = 8;

/**
 * The table of formatTable narrowed to `columns` characters a line: free-text columns cut with
 * '…', then optional columns left out, as `fit` says; `dropped` names those left out. A table
 * that fits is formatTable's. One that still does not (identifiers alone wider) is as narrow as it gets.
 */
export function fitTable(headers: string[], rows: Row[], columns: number, fit: TableFit): { text: string; dropped: string[] } {
  const cells = cellsOf(rows);
  const natural = naturalWidths(headers, cells);
  const cuttable = new Set(fit.shrink?.map((h) => headers.indexOf(h)).filter((i) => i >= 0));
  const least = natural.map((w, i) => (cuttable.has(i) ? Math.min(w, Math.max(headers[i].length, MIN_CUT)) : w));
  let shown = headers.map((_, i) => i);
  const total = (widths: readonly number[]) => shown.reduce((sum, i) => sum + widths[i], 0) + 2 * (shown.length - 1);
  const dropped: string[] = [];
  for (const header of fit.drop ?? []) {
    const i = headers.indexOf(header);
    if (total(least) <= columns || shown.length <= 1) break;
    if (i < 0 || !shown.includes(i)) continue;
    shown = shown.filter((j) => j !== i);
    dropped.push(header);
  }
  const widths = [...natural];
  while (total(widths) > columns) {
    const widest = shown.filter((i) => cuttable.has(i) && widths[i] > least[i]).sort((a, b) => widths[b] - widths[a])[0];
    if (widest === undefined) break;
    widths[widest] -= 1;
  }
  const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);
  const line = (r: readonly string[]) => shown.map((i, at) => (at === shown.length - 1 ? cut(r[i], widths[i]) : cut(r[i], widths[i]).padEnd(widths[i]))).join('  ');
  return { text: [line(headers), ...cells.map(line)].join('\n'), dropped };
}

/**
 * Prints a table: on a terminal, narrowed to its width (fitTable) with a line naming the columns
 * left out; elsewhere (a pipe, a file, a script) whole, as formatTable writes it.
 */
export function printTable(headers: string[], rows: Row[], fit: TableFit): void {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  if (!columns) return print(formatTable(headers, rows));
  const { text, dropped } = fitTable(headers, rows, columns, fit);
  print(text);
  if (dropped.length > 0) print(`(${dropped.join(', ')} left out to fit the terminal: --json shows every field)`);
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
