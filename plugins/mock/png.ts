import { deflateSync, inflateSync } from 'node:zlib';

/** An 8-bit RGBA raster, row-major. */
export interface Raster {
  width: number;
  height: number;
  /** width × height × 4 bytes. */
  rgba: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as PNG chunks use it). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes a raster as a PNG: RGB when every pixel is opaque, RGBA otherwise; filter 0 on every row. */
export function encodePng(raster: Raster): Buffer {
  const { width, height, rgba } = raster;
  let opaque = true;
  for (let i = 3; i < rgba.length; i += 4) {
    if (rgba[i] !== 255) {
      opaque = false;
      break;
    }
  }
  const channels = opaque ? 3 : 4;
  const stride = width * channels + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    let out = y * stride + 1;
    let inp = y * width * 4;
    for (let x = 0; x < width; x++, inp += 4) {
      raw[out++] = rgba[inp];
      raw[out++] = rgba[inp + 1];
      raw[out++] = rgba[inp + 2];
      if (!opaque) raw[out++] = rgba[inp + 3];
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = opaque ? 2 : 6; // colour type: truecolour (+alpha)
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 6 })), chunk('IEND', new Uint8Array(0))]);
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes the per-row PNG filters in place; returns the unfiltered rows without filter bytes. */
function unfilter(data: Buffer, width: number, height: number, bpp: number): Uint8Array {
  const rowBytes = width * bpp;
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (rowBytes + 1)];
    const src = y * (rowBytes + 1) + 1;
    const row = y * rowBytes;
    for (let x = 0; x < rowBytes; x++) {
      const a = x >= bpp ? out[row + x - bpp] : 0;
      const b = y > 0 ? out[row - rowBytes + x] : 0;
      const c = x >= bpp && y > 0 ? out[row - rowBytes + x - bpp] : 0;
      const value = data[src + x];
      const predicted = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : -1;
      if (predicted < 0) throw new Error(`unknown PNG filter ${filter}`);
      out[row + x] = (value + predicted) & 0xff;
    }
  }
  return out;
}

/** Decodes a non-interlaced 8-bit PNG (grey, RGB, palette, grey+alpha, RGBA) to RGBA. */
export function decodePng(bytes: Uint8Array): Raster {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 33 || !buf.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = -1;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const idat: Buffer[] = [];
  while (offset + 8 <= buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    offset += 12 + length;
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs are supported');
      colorType = data[9];
    } else if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') transparency = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
  }
  const bpp = CHANNELS[colorType];
  if (!bpp || width === 0 || height === 0) throw new Error('unsupported PNG');
  const pixels = unfilter(inflateSync(Buffer.concat(idat)), width, height, bpp);
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, p = 0; i < width * height; i++, p += bpp) {
    const o = i * 4;
    if (colorType === 3) {
      const index = pixels[p];
      rgba[o] = palette?.[index * 3] ?? 0;
      rgba[o + 1] = palette?.[index * 3 + 1] ?? 0;
      rgba[o + 2] = palette?.[index * 3 + 2] ?? 0;
      rgba[o + 3] = transparency && index < transparency.length ? transparency[index] : 255;
    } else if (colorType === 0 || colorType === 4) {
      rgba[o] = rgba[o + 1] = rgba[o + 2] = pixels[p];
      rgba[o + 3] = colorType === 4 ? pixels[p + 1] : 255;
    } else {
      rgba[o] = pixels[p];
      rgba[o + 1] = pixels[p + 1];
      rgba[o + 2] = pixels[p + 2];
      rgba[o + 3] = colorType === 6 ? pixels[p + 3] : 255;
    }
  }
  return { width, height, rgba };
}
