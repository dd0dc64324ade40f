// An event-stream codec written from AWS's wire description alone (not Smithy's), so the tests of the
// gateway's Bedrock framing check its bytes against something it does not share code with:
// [total length u32][headers length u32][prelude CRC32][headers][payload][message CRC32], each header
// [name length u8][name][type u8 = 7 string][value length u16][value].
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export interface WireMessage {
  headers: Record<string, string>;
  payload: string;
}

export function encodeWire(message: WireMessage): Buffer {
  const headers = Buffer.concat(
    Object.entries(message.headers).map(([name, value]) => {
      const n = Buffer.from(name);
      const v = Buffer.from(value);
      const head = Buffer.alloc(1 + n.length + 3);
      head.writeUInt8(n.length, 0);
      n.copy(head, 1);
      head.writeUInt8(7, 1 + n.length);
      head.writeUInt16BE(v.length, 2 + n.length);
      return Buffer.concat([head, v]);
    }),
  );
  const payload = Buffer.from(message.payload);
  const total = 12 + headers.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headers, payload]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, tail]);
}

/** Every message of a whole stream; throws on a bad length or checksum. */
export function decodeWire(bytes: Buffer): WireMessage[] {
  const out: WireMessage[] = [];
  let at = 0;
  while (at < bytes.length) {
    const total = bytes.readUInt32BE(at);
    const headersLength = bytes.readUInt32BE(at + 4);
    if (bytes.readUInt32BE(at + 8) !== crc32(bytes.subarray(at, at + 8))) throw new Error(`prelude CRC of the message at ${at}`);
    if (bytes.readUInt32BE(at + total - 4) !== crc32(bytes.subarray(at, at + total - 4))) throw new Error(`message CRC of the message at ${at}`);
    const headers: Record<string, string> = {};
    let h = at + 12;
    while (h < at + 12 + headersLength) {
      const n = bytes.readUInt8(h);
      const name = bytes.subarray(h + 1, h + 1 + n).toString();
      if (bytes.readUInt8(h + 1 + n) !== 7) throw new Error(`header ${name} is not a string`);
      const v = bytes.readUInt16BE(h + 2 + n);
      headers[name] = bytes.subarray(h + 4 + n, h + 4 + n + v).toString();
      h += 4 + n + v;
    }
    out.push({ headers, payload: bytes.subarray(at + 12 + headersLength, at + total - 4).toString() });
    at += total;
  }
  return out;
}
