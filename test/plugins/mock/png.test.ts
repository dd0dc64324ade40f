import { crc32 as zlibCrc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, decodePng, encodePng, type Raster } from '../../../plugins/mock/png.ts';

interface Chunk {
  type: string;
  data: Buffer;
  crc: number;
}

/** Splits a PNG into chunks without using the code under test. */
export function chunksOf(png: Buffer): Chunk[] {
  const out: Chunk[] = [];
  let offset = 8;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    out.push({ type: png.toString('latin1', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length), crc: png.readUInt32BE(offset + 8 + length) });
    offset += 12 + length;
  }
  return out;
}

function raster(width: number, height: number, alpha = 255): Raster {
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([i % 256, (i * 7) % 256, (i * 13) % 256, alpha], i * 4);
  return { width, height, rgba };
}

describe('mock PNG encoder', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const data = Buffer.from('IEND');
    expect(crc32(data)).toBe(zlibCrc32(data));
  });

  it('writes the signature, IHDR with the size, and a valid CRC on every chunk', () => {
    const png = encodePng(raster(37, 11));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const chunks = chunksOf(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    for (const c of chunks) expect(c.crc).toBe(zlibCrc32(Buffer.concat([Buffer.from(c.type, 'latin1'), c.data])));
    const ihdr = chunks[0].data;
    expect(ihdr.readUInt32BE(0)).toBe(37);
    expect(ihdr.readUInt32BE(4)).toBe(11);
    expect(ihdr[8]).toBe(8);
    expect(ihdr[9]).toBe(2); // opaque → RGB
  });

  it('stores one filter byte plus width × channels bytes per row', () => {
    const opaque = chunksOf(encodePng(raster(5, 3)));
    expect(inflateSync(opaque[1].data).length).toBe(3 * (1 + 5 * 3));
    const translucent = chunksOf(encodePng(raster(5, 3, 128)));
    expect(translucent[0].data[9]).toBe(6); // RGBA
    expect(inflateSync(translucent[1].data).length).toBe(3 * (1 + 5 * 4));
  });

  it('round-trips through the decoder, RGB and RGBA', () => {
    for (const alpha of [255, 0, 77]) {
      const source = raster(9, 4, alpha);
      const decoded = decodePng(encodePng(source));
      expect(decoded.width).toBe(9);
      expect(decoded.height).toBe(4);
      expect([...decoded.rgba]).toEqual([...source.rgba]);
    }
  });

  it('decodes every PNG row filter (Sub, Up, Average, Paeth) and grey+alpha', async () => {
    const { deflateSync } = await import('node:zlib');
    // A 3x4 grey+alpha image (2 bytes a pixel), one row per filter 1-4, built by hand.
    const rows = [
      [1, 10, 255, 5, 0, 5, 0],
      [2, 1, 0, 1, 0, 1, 0],
      [3, 2, 0, 2, 0, 2, 0],
      [4, 0, 0, 0, 0, 0, 0],
    ];
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(3, 0);
    ihdr.writeUInt32BE(4, 4);
    ihdr[8] = 8;
    ihdr[9] = 4;
    const chunk = (type: string, data: Buffer) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(data.length);
      head.write(type, 4, 'latin1');
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlibCrc32(Buffer.concat([head.subarray(4), data])));
      return Buffer.concat([head, data, crc]);
    };
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.from(rows.flat()))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    const decoded = decodePng(png);
    const pixels = [...Array(12).keys()];
    const grey = pixels.map((i) => decoded.rgba[i * 4]);
    const alpha = pixels.map((i) => decoded.rgba[i * 4 + 3]);
    // Sub, Up, Average (floor((left + up) / 2)), Paeth (here: always the pixel above).
    expect(grey).toEqual([10, 15, 20, 11, 16, 21, 7, 13, 19, 7, 13, 19]);
    expect(alpha).toEqual([255, 255, 255, 255, 255, 255, 127, 191, 223, 127, 191, 223]);
  });

  it('rejects what is not a PNG', () => {
    expect(() => decodePng(Buffer.from('GIF89a not a png at all, definitely not'))).toThrow(/not a PNG/);
  });
});
