import { crc32, inflateSync } from 'node:zlib';

/** An independent PNG check (node's zlib only): size from IHDR, every CRC, and the IDAT row count. */
export function checkPng(bytes: Uint8Array): { width: number; height: number; colorType: number; crcOk: boolean; rawBytes: number } {
  const png = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('no PNG signature');
  let offset = 8;
  let crcOk = true;
  let width = 0;
  let height = 0;
  let colorType = -1;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (png.readUInt32BE(offset + 8 + length) !== crc32(png.subarray(offset + 4, offset + 8 + length))) crcOk = false;
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      colorType = data[9];
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  return { width, height, colorType, crcOk, rawBytes: inflateSync(Buffer.concat(idat)).length };
}

/** Bytes per row (with the filter byte) × rows, for an 8-bit image of `colorType`. */
export function expectedRawBytes(width: number, height: number, colorType: number): number {
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType] ?? 0;
  return height * (1 + width * channels);
}
