import fs from 'node:fs';

/** One whole line of a JSONL file. */
export interface LogLine {
  /** 1-based line number. */
  number: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Bytes of the line including its newline. */
  bytes: number;
  /** The line without its newline. */
  text: string;
}

const CHUNK = 1 << 20;

/**
 * Visits every whole line of a file, oldest first, reading 1 MB at a time (a large file never
 * becomes one string). A last line without its newline (a write torn by a crash) is not
 * visited; `tornAt` gives its offset. `end` is the file size. A missing file has no lines.
 */
export function readLogLines(file: string, visit: (line: LogLine) => void): { end: number; tornAt?: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { end: 0 };
    throw error;
  }
  const chunk = Buffer.allocUnsafe(CHUNK);
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let lineStart = 0;
  let position = 0;
  let number = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, CHUNK, position);
      if (n === 0) break;
      let from = 0;
      for (;;) {
        const at = chunk.indexOf(0x0a, from);
        if (at === -1 || at >= n) break;
        const piece = chunk.subarray(from, at);
        const text = carryBytes > 0 ? Buffer.concat([...carry, piece]).toString('utf8') : piece.toString('utf8');
        const bytes = carryBytes + (at - from) + 1;
        number += 1;
        if (text.length > 0) visit({ number, offset: lineStart, bytes, text });
        lineStart += bytes;
        carry = [];
        carryBytes = 0;
        from = at + 1;
      }
      if (from < n) {
        carry.push(Buffer.from(chunk.subarray(from, n)));
        carryBytes += n - from;
      }
      position += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return carryBytes > 0 ? { end: position, tornAt: lineStart } : { end: position };
}
