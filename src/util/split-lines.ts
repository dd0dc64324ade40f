/**
 * The lines of bytes read a piece at a time (a JSONL file), each without its `\n`, the last one
 * even without it; holds one line at most, so a file larger than memory is read in bounded space.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  for await (const piece of chunks) {
    const chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, newline);
      yield held.length === 0 ? part : Buffer.concat([...held, part]);
      held = [];
      start = newline + 1;
    }
    if (start < chunk.length) held.push(chunk.subarray(start));
  }
  if (held.length > 0) yield Buffer.concat(held);
}
