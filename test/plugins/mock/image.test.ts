import { describe, expect, it } from 'vitest';
import { editImages, generateImages } from '../../../plugins/mock/image.ts';
import { decodePng, encodePng } from '../../../plugins/mock/png.ts';
import { checkPng, expectedRawBytes } from '../../media/png-check.ts';

const signal = new AbortController().signal;
const gen = (prompt: string, seed?: number, n = 1, width = 48, height = 32) => ({
  model: 'image', prompt, n, size: `${width}x${height}`, width, height, seed, extra: {}, signal,
});

describe('mock/image', () => {
  it('draws valid PNGs of the requested size', () => {
    const { images } = generateImages(gen('a lighthouse', undefined, 2, 33, 17));
    expect(images).toHaveLength(2);
    for (const image of images) {
      const info = checkPng(image.data);
      expect(info).toMatchObject({ width: 33, height: 17, crcOk: true });
      expect(info.rawBytes).toBe(expectedRawBytes(33, 17, info.colorType));
      expect(image.contentType).toBe('image/png');
      expect(image.revisedPrompt).toContain('a lighthouse');
    }
    expect(Buffer.compare(images[0].data, images[1].data)).not.toBe(0);
  });

  it('is deterministic per prompt and seed and differs across them', () => {
    const bytes = (prompt: string, seed?: number) => Buffer.from(generateImages(gen(prompt, seed)).images[0].data);
    expect(bytes('cat', 1).equals(bytes('cat', 1))).toBe(true);
    expect(bytes('cat', 1).equals(bytes('cat', 2))).toBe(false);
    expect(bytes('cat', 1).equals(bytes('dog', 1))).toBe(false);
  });

  it('edits only where the mask is transparent', () => {
    const width = 20;
    const height = 10;
    const grey = new Uint8Array(width * height * 4).fill(128);
    const mask = new Uint8Array(width * height * 4).fill(255);
    for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) mask[(y * width + x) * 4 + 3] = 0; // left half transparent
    const result = editImages({
      ...gen('paint it', 3, 1, width, height),
      image: { data: encodePng({ width, height, rgba: grey }), filename: 'in.png', contentType: 'image/png' },
      mask: { data: encodePng({ width, height, rgba: mask }), filename: 'mask.png', contentType: 'image/png' },
    });
    const out = decodePng(result.images[0].data);
    const changed = (x: number, y: number) => [0, 1, 2].some((k) => out.rgba[(y * width + x) * 4 + k] !== 128);
    let left = 0;
    for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) if (changed(x, y)) left += 1;
    expect(left).toBeGreaterThan((width / 2) * height * 0.5);
    for (let y = 0; y < height; y++) for (let x = width / 2; x < width; x++) expect(changed(x, y)).toBe(false);
  });

  it('turns an upload that is not a PNG into a 422 on the image field', () => {
    expect(() =>
      editImages({ ...gen('x'), image: { data: new Uint8Array([1, 2, 3]), filename: 'x.jpg', contentType: 'image/jpeg' } }),
    ).toThrow(expect.objectContaining({ status: 422, details: { fields: { image: expect.stringContaining('PNG') } } }));
  });
});
