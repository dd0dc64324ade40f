const LF_LF = Buffer.from('\n\n');
const LF_CRLF = Buffer.from('\n\r\n');
const CR_CR = Buffer.from('\r\r');

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** The offset just past the last blank line (end of an SSE record) in `bytes`, or 0. */
function lastRecordEnd(bytes: Buffer): number {
  // Upstreams write whole records, so a chunk nearly always ends with its blank line:
  // answer that from the last bytes instead of three searches of the whole chunk.
  const n = bytes.length;
  if (n >= 2 && bytes[n - 1] === 10 && (bytes[n - 2] === 10 || (n >= 3 && bytes[n - 2] === 13 && bytes[n - 3] === 10))) return n;
  const lf = bytes.lastIndexOf(LF_LF);
  const crlf = bytes.lastIndexOf(LF_CRLF);
  let cr = bytes.lastIndexOf(CR_CR);
  // A trailing \r\r may still become \r\r\n: the SSE parser waits for the next byte, so do we.
  if (cr !== -1 && cr + 2 === bytes.length) cr = cr > 0 ? bytes.lastIndexOf(CR_CR, cr - 1) : -1;
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 3, cr === -1 ? 0 : cr + 2);
}

/**
 * Re-cuts passthrough bytes at SSE record boundaries. The bytes go through unchanged, but a
 * client never holds half a record, so the gateway can always append a clean error event
 * (or drop a record) without corrupting the record in flight.
 */
export class RecordAligner {
  private pending: Buffer | undefined;

  /** Feeds a chunk; returns the complete records' bytes (possibly empty). */
  push(chunk: Uint8Array): Buffer {
    const bytes = this.pending ? Buffer.concat([this.pending, toBuffer(chunk)]) : toBuffer(chunk);
    const end = lastRecordEnd(bytes);
    this.pending = end < bytes.length ? bytes.subarray(end) : undefined;
    return end === bytes.length ? bytes : bytes.subarray(0, end);
  }

  /** Bytes of a last record that never got its blank line. */
  rest(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    return rest;
  }
}
