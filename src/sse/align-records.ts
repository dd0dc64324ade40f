import { GatewayError } from '../errors/index.ts';

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
 * The most bytes one record may take (docs/limits.md, "Upstream answers"): a record past it is the
 * upstream's fault (a stream that never sends its blank line, or a body that is no stream), not
 * something to hold in memory until it ends.
 */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** The longest record end (`\n\r\n`) less one: bytes of what came before that can end a record with a new chunk's bytes. */
const JOIN = 2;

/**
 * Re-cuts passthrough bytes at SSE record boundaries. The bytes go through unchanged, but a
 * client never holds half a record, so the gateway can always append a clean error event
 * (or drop a record) without corrupting the record in flight. A record that comes in many
 * chunks is kept as those chunks and searched a chunk at a time (joined once, when it ends),
 * and one past `maxRecordBytes` fails the stream (a provider_error).
 */
export class RecordAligner {
  /** Bytes of a record not yet ended, as they came. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxRecordBytes = MAX_RECORD_BYTES) {}

  /** Feeds a chunk; returns the complete records' bytes (possibly empty). */
  push(chunk: Uint8Array): Buffer {
    const bytes = toBuffer(chunk);
    if (this.pendingBytes === 0) {
      const end = lastRecordEnd(bytes);
      if (end < bytes.length) this.hold(bytes.subarray(end));
      return end === bytes.length ? bytes : bytes.subarray(0, end);
    }
    // Only the new bytes can end the record, with at most the last JOIN bytes held before them.
    const before = this.lastHeld(JOIN);
    const found = lastRecordEnd(Buffer.concat([before, bytes]));
    if (found === 0) {
      this.hold(bytes);
      return EMPTY;
    }
    // Past the held bytes (0: they end a record, e.g. a trailing \r\r the next byte did not make \r\r\n).
    const end = Math.max(0, found - before.length);
    const held = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    held.push(bytes.subarray(0, end));
    const whole = Buffer.concat(held);
    if (end < bytes.length) this.hold(bytes.subarray(end));
    return whole;
  }

  /** Bytes of a last record that never got its blank line. */
  rest(): Buffer | undefined {
    if (this.pendingBytes === 0) return undefined;
    const rest = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > this.maxRecordBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      throw recordTooLarge(this.maxRecordBytes);
    }
    this.pending.push(bytes);
  }

  /** The last `n` bytes held (fewer when fewer are held). */
  private lastHeld(n: number): Buffer {
    const last = this.pending[this.pending.length - 1];
    if (last.length >= n || this.pending.length === 1) return last.subarray(Math.max(0, last.length - n));
    return Buffer.concat(this.pending).subarray(-n);
  }
}

const EMPTY = Buffer.alloc(0);

/** An upstream stream record longer than the aligner holds: the stream fails as the provider's error (502, an error event once streaming). */
function recordTooLarge(limitBytes: number): GatewayError {
  return new GatewayError('provider_error', `The provider sent a stream record larger than ${limitBytes} bytes, the most the gateway holds of one record.`, { details: { limit_bytes: limitBytes } });
}
