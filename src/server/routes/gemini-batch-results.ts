import type { BatchRecord } from '../../store/index.ts';
import { splitLines } from '../../util/index.ts';
import type { ServerDeps } from '../types.ts';

/** A result line of the batch's output or error file, by custom id. */
export type ResultLine = { custom_id?: unknown; response?: { status_code?: number; body?: unknown } | null; error?: { code?: string; message?: string } | null };

/** The result of each input line, asked in input order (custom ids `request-1`, `request-2`, …). */
export interface BatchResults {
  /** The result line of `customId` (the error file's over the output file's, the last line of an id in a file), if any. */
  resultOf(customId: string): Promise<ResultLine | undefined>;
  /** Ends the file reads still open. */
  close(): Promise<void>;
}

/** The input line number a Gemini face batch's custom id says (`request-7` → 7); undefined for any other id. */
function lineNumber(customId: unknown): number | undefined {
  if (typeof customId !== 'string' || !customId.startsWith('request-')) return undefined;
  const n = Number(customId.slice('request-'.length));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A result file's parsed lines, a line at a time (none when the file is gone). */
async function* eachResult(deps: ServerDeps, accountId: string, fileId: string | null | undefined): AsyncGenerator<ResultLine> {
  const chunks = fileId ? await deps.store.files.contentChunks(accountId, fileId) : undefined;
  if (!chunks) return;
  for await (const line of splitLines(chunks)) {
    const text = line.toString('utf8');
    if (text.trim() !== '') yield JSON.parse(text) as ResultLine;
  }
}

/** Whether every line of the batch's result files names an input line, in input order (as finishBatch writes them). */
async function inInputOrder(deps: ServerDeps, batch: BatchRecord): Promise<boolean> {
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    let last = 0;
    for await (const line of eachResult(deps, batch.accountId, fileId)) {
      const n = lineNumber(line.custom_id);
      if (n === undefined || n < last) return false;
      last = n;
    }
  }
  return true;
}

/** One result file read alongside the input: the lines of a number are taken when that input line is. */
class ResultCursor {
  private current: { n: number; line: ResultLine } | undefined;

  private constructor(private readonly lines: AsyncGenerator<ResultLine>) {}

  static async open(lines: AsyncGenerator<ResultLine>): Promise<ResultCursor> {
    const cursor = new ResultCursor(lines);
    await cursor.advance();
    return cursor;
  }

  private async advance(): Promise<void> {
    const next = await this.lines.next();
    this.current = next.done ? undefined : { n: lineNumber(next.value.custom_id)!, line: next.value };
  }

  /** The last line of number `n`, passing the ones before it (asked with `n` growing). */
  async take(n: number): Promise<ResultLine | undefined> {
    while (this.current && this.current.n < n) await this.advance();
    let found: ResultLine | undefined;
    while (this.current && this.current.n === n) {
      found = this.current.line;
      await this.advance();
    }
    return found;
  }

  async close(): Promise<void> {
    await this.lines.return(undefined);
  }
}

/** The results read alongside the input, a line of each file at a time: memory bounded by the longest line. */
async function streamedResults(deps: ServerDeps, batch: BatchRecord): Promise<BatchResults> {
  const output = await ResultCursor.open(eachResult(deps, batch.accountId, batch.output_file_id));
  const errors = await ResultCursor.open(eachResult(deps, batch.accountId, batch.error_file_id));
  return {
    async resultOf(customId) {
      const n = lineNumber(customId);
      if (n === undefined) return undefined;
      const ok = await output.take(n);
      return (await errors.take(n)) ?? ok;
    },
    async close() {
      await Promise.all([output.close(), errors.close()]);
    },
  };
}

/** Where a result line lies in its file's bytes: parsed again when it is answered, so the results are never all objects at once. */
interface ResultAt {
  content: Buffer;
  start: number;
  end: number;
}

/** JSON's whitespace (a CR before a line's LF too). */
const BLANK = new Set([0x20, 0x09, 0x0d]);

/** Calls `each` with every line of a batch file's bytes that is not blank (its JSON text between `start` and `end`). */
function forEachLine(content: Buffer, each: (start: number, end: number) => void): void {
  for (let start = 0; start < content.length; ) {
    const newline = content.indexOf(10, start);
    const end = newline < 0 ? content.length : newline;
    let first = start;
    while (first < end && BLANK.has(content[first])) first++;
    if (first < end) each(start, end);
    start = end + 1;
  }
}

/** The results by custom id from the files' bytes held whole (the last line of an id wins): for files not in input order. */
async function indexedResults(deps: ServerDeps, batch: BatchRecord): Promise<BatchResults> {
  const results = new Map<string, ResultAt>();
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    const content = fileId ? await deps.store.files.content(batch.accountId, fileId) : undefined;
    if (!content) continue;
    forEachLine(content, (start, end) => {
      const line = JSON.parse(content.toString('utf8', start, end)) as ResultLine;
      if (typeof line.custom_id === 'string') results.set(line.custom_id, { content, start, end });
    });
  }
  return {
    resultOf: (customId) => {
      const at = results.get(customId);
      return Promise.resolve(at ? (JSON.parse(at.content.toString('utf8', at.start, at.end)) as ResultLine) : undefined);
    },
    close: () => Promise.resolve(),
  };
}

/**
 * A batch's results for its input lines in order. Result files in input order (finishBatch writes
 * them so) are read alongside the input, a line at a time; others (an expired batch's error file
 * has its unrun lines after the failed ones) are indexed from their bytes, held whole.
 */
export async function batchResults(deps: ServerDeps, batch: BatchRecord): Promise<BatchResults> {
  return (await inInputOrder(deps, batch)) ? streamedResults(deps, batch) : indexedResults(deps, batch);
}
