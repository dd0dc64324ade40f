import fs from 'node:fs';
import type { LedgerEntry } from './usage-ledger.ts';

/** A page of one account's ledger lines, newest first, and where the next page starts. */
export interface LedgerPage {
  data: LedgerEntry[];
  /** Pass back as `cursor` for older lines; null when the ledger has no more. */
  next: string | null;
}

export interface LedgerPageQuery {
  accountId: string;
  /** Where the previous page stopped (a byte offset of the file); absent: the newest lines. */
  cursor?: string;
  limit: number;
  /** The most bytes one page reads; a page of a rare account may come back short, with a cursor. */
  maxScanBytes?: number;
}

const CHUNK = 256 * 1024;
const NEWLINE = 10;

/**
 * One account's ledger lines, newest first, read backwards from the end of the JSONL file (or
 * the cursor): a page costs the bytes between it and the previous one, whatever the ledger's
 * length, and never more than `maxScanBytes` (16 MiB), so no page holds the server long.
 * Lines of other accounts are skipped by a byte search before any JSON parse.
 */
export async function readLedgerPage(file: string, query: LedgerPageQuery): Promise<LedgerPage> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return { data: [], next: null };
  }
  try {
    const size = (await handle.stat()).size;
    const from = query.cursor === undefined ? size : Math.min(size, Math.max(0, Number(query.cursor) || 0));
    return await scanBackwards(handle, from, query);
  } finally {
    await handle.close();
  }
}

async function scanBackwards(handle: fs.promises.FileHandle, from: number, query: LedgerPageQuery): Promise<LedgerPage> {
  const needle = Buffer.from(`"account_id":${JSON.stringify(query.accountId)}`);
  const maxScan = query.maxScanBytes ?? 16 * 1024 * 1024;
  const data: LedgerEntry[] = [];
  // `buf` holds the file's bytes [bufStart, end): `end` is where the lines not looked at yet stop.
  let buf = Buffer.alloc(0);
  let bufStart = from;
  let end = from;
  while (data.length < query.limit && end > 0 && from - bufStart < maxScan) {
    const start = Math.max(0, bufStart - CHUNK);
    const chunk = Buffer.alloc(bufStart - start);
    await handle.read(chunk, 0, chunk.length, start);
    buf = Buffer.concat([chunk, buf.subarray(0, end - bufStart)]);
    bufStart = start;
    let pos = end - bufStart;
    while (pos > 0 && data.length < query.limit) {
      const newline = pos < 2 ? -1 : buf.lastIndexOf(NEWLINE, pos - 2);
      // The line may start before what was read: read more first (unless this is the file's start).
      if (newline === -1 && bufStart > 0) break;
      const lineStart = newline + 1;
      const line = buf.subarray(lineStart, buf[pos - 1] === NEWLINE ? pos - 1 : pos);
      if (line.indexOf(needle) !== -1) {
        const entry = parseLine(line, query.accountId);
        if (entry) data.push(entry);
      }
      pos = lineStart;
    }
    end = bufStart + pos;
  }
  return { data, next: end > 0 ? String(end) : null };
}

function parseLine(line: Buffer, accountId: string): LedgerEntry | undefined {
  try {
    const entry = JSON.parse(line.toString('utf8')) as LedgerEntry;
    return entry && typeof entry === 'object' && entry.account_id === accountId ? entry : undefined;
  } catch {
    // A torn line (a crash mid-write, or the line being written now).
    return undefined;
  }
}
