// A binary framing, as AWS event-stream is one: each record is [u32 length of the rest][u8 name
// length][name][payload]. It proves the framer interface takes bytes that are not text.
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from 'gateway/plugin-kit';

const NONE: WireRecord[] = [];

class BinaryReader implements FrameReader {
  records: WireRecord[] = NONE;
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): Buffer {
    const bytes = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const records: WireRecord[] = [];
    let at = 0;
    while (bytes.length - at >= 5) {
      const size = bytes.readUInt32BE(at);
      if (bytes.length - at - 4 < size) break;
      const nameLength = bytes[at + 4];
      const name = bytes.toString('utf8', at + 5, at + 5 + nameLength);
      records.push({ event: name, data: bytes.toString('utf8', at + 5 + nameLength, at + 4 + size) });
      at += 4 + size;
    }
    this.pending = bytes.subarray(at);
    this.records = records.length === 0 ? NONE : records;
    return bytes.subarray(0, at);
  }

  end(): WireRecord[] {
    return NONE; // a cut frame cannot be read: the relay then says the stream ended early
  }
}

/** One record as a frame. */
export function frameRecord(record: WireRecord): Buffer {
  const name = Buffer.from(record.event ?? '');
  const payload = Buffer.from(record.data);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(1 + name.length + payload.length, 0);
  head[4] = name.length;
  return Buffer.concat([head, name, payload]);
}

const WRITER: FrameWriter = {
  write: (records) => Buffer.concat(records.map(frameRecord)),
  passed() {},
  end: () => Buffer.alloc(0),
};

export const binaryFraming: StreamFraming = {
  contentType: 'application/x-toy-frames',
  createReader: () => new BinaryReader(),
  createWriter: () => WRITER,
};
