import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE } from './private-files.ts';
import { readLogLines } from './read-log-lines.ts';

/** A line of a data file that could not be used, as kept aside. */
export interface RejectedLine {
  /** The file it came from (base name). */
  file: string;
  /** 1-based line number; -1 for a torn last line. */
  line: number;
  offset: number;
  text: string;
  /** True for a last line cut off by a crash (it is removed from the file after being kept here). */
  torn?: boolean;
}

/** `usage.jsonl` → `usage.rejected.jsonl`. */
export function rejectedFileOf(file: string): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), `${path.basename(file, ext)}.rejected${ext || '.jsonl'}`);
}

function fingerprint(r: Pick<RejectedLine, 'file' | 'offset' | 'text'>): string {
  return createHash('sha256').update(`${r.file}\0${r.offset}\0${r.text}`).digest('hex').slice(0, 32);
}

/**
 * Appends rejected lines to the side file of `file` (0600), one JSON object a line with when,
 * where and the raw text, so nothing is dropped without a trace. A line already kept (same
 * file, offset and text: seen again at the next start) is not added twice. Returns the side file.
 */
export function keepRejectedLines(file: string, lines: readonly RejectedLine[]): string {
  const side = rejectedFileOf(file);
  const known = new Set<string>();
  readLogLines(side, (l) => {
    try {
      const kept = JSON.parse(l.text) as { fingerprint?: string };
      if (kept.fingerprint) known.add(kept.fingerprint);
    } catch {
      // a torn line of the side file itself: ignore
    }
  });
  const at = new Date().toISOString();
  let out = '';
  for (const r of lines) {
    const id = fingerprint(r);
    if (known.has(id)) continue;
    known.add(id);
    out += JSON.stringify({ at, file: r.file, line: r.line, offset: r.offset, torn: r.torn ?? false, text: r.text, fingerprint: id }) + '\n';
  }
  if (out) {
    const created = !fs.existsSync(side);
    const fd = fs.openSync(side, 'a', FILE_MODE);
    try {
      fs.writeSync(fd, out);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // A new side file's name too: the caller cuts a torn line from its file next.
    if (created) syncDirNow(path.dirname(side));
  }
  return side;
}

/** Makes a new name in `dir` durable, where the platform lets a directory be opened (not on Windows: the file stands as written). */
export function syncDirNow(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // not supported here
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
