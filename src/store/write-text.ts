import type fs from 'node:fs';

const SLICE_CHARS = 1 << 20;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Writes a string in 1M-character slices, so a 100 MB body never holds the event loop while
 * it is encoded; every slice is encoded into the same buffer (no garbage per slice).
 */
export async function writeText(handle: fs.promises.FileHandle, text: string): Promise<number> {
  if (text.length === 0) return 0;
  // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
  const scratch = Buffer.allocUnsafe(Math.min(text.length, SLICE_CHARS) * 3);
  let bytes = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    const n = scratch.write(text.slice(start, end), 0, 'utf8');
    for (let done = 0; done < n; ) done += (await handle.write(scratch, done, n - done)).bytesWritten;
    bytes += n;
    start = end;
  }
  return bytes;
}
