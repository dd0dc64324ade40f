import { createHash } from 'node:crypto';
import { GatewayError, type ImageEditCall, type ImageGenerationCall, type ImageResult } from 'gateway/plugin-kit';
import { decodePng, encodePng, type Raster } from './png.ts';

/** Largest side the mock draws (keeps a stray request from allocating gigabytes). */
const MAX_SIDE = 4096;

function seedBytes(prompt: string, seed: number | undefined, index: number): Buffer {
  return createHash('sha256').update(`${prompt}\u0000${seed ?? ''}\u0000${index}`).digest();
}

/**
 * A deterministic picture for (prompt, seed, index): a two-colour gradient crossed by
 * stripes at a hashed angle and rings around a hashed centre. Different inputs differ visibly.
 */
export function drawPattern(width: number, height: number, prompt: string, seed: number | undefined, index: number): Raster {
  const h = seedBytes(prompt, seed, index);
  const c1 = [h[0], h[1], h[2]];
  const c2 = [h[3], h[4], h[5]];
  const c3 = [255 - h[6], 255 - h[7], 255 - h[8]];
  const angle = (h[9] / 256) * Math.PI;
  const period = 8 + (h[10] % 48);
  const cx = (h[11] / 255) * width;
  const cy = (h[12] / 255) * height;
  const ringPeriod = 12 + (h[13] % 64);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const g = height > 1 ? y / (height - 1) : 0;
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((x * cos + y * sin) / period) & 1;
      const ring = Math.floor(Math.hypot(x - cx, y - cy) / ringPeriod) % 3 === 0;
      const o = (y * width + x) * 4;
      for (let k = 0; k < 3; k++) {
        const base = c1[k] + (c2[k] - c1[k]) * g;
        rgba[o + k] = ring ? c3[k] : stripe ? base : base * 0.6;
      }
      rgba[o + 3] = 255;
    }
  }
  return { width, height, rgba };
}

function checkSize(width: number, height: number): void {
  if (width > MAX_SIDE || height > MAX_SIDE) {
    const message = `mock/image draws at most ${MAX_SIDE}x${MAX_SIDE}`;
    throw new GatewayError('validation_error', message, { details: { fields: { size: message } } });
  }
}

/** mock/image generations: `n` PNGs of the requested size. */
export function generateImages(call: ImageGenerationCall): ImageResult {
  checkSize(call.width, call.height);
  const images = Array.from({ length: call.n }, (_, i) => ({
    data: encodePng(drawPattern(call.width, call.height, call.prompt, call.seed, i)),
    contentType: 'image/png',
    revisedPrompt: `${call.prompt} (mock rendering ${i + 1} of ${call.n})`,
  }));
  return { images, usage: { inputTokens: Math.ceil(call.prompt.length / 4), outputTokens: 0 } };
}

/** Nearest-neighbour resize, enough to bring an upload to the requested size. */
function resize(src: Raster, width: number, height: number): Raster {
  if (src.width === width && src.height === height) return src;
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(src.height - 1, Math.floor((y * src.height) / height));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(src.width - 1, Math.floor((x * src.width) / width));
      rgba.set(src.rgba.subarray((sy * src.width + sx) * 4, (sy * src.width + sx) * 4 + 4), (y * width + x) * 4);
    }
  }
  return { width, height, rgba };
}

function decodeUpload(data: Uint8Array, field: string): Raster {
  try {
    return decodePng(data);
  } catch (error) {
    const message = `mock/image could not read the ${field} as a PNG: ${(error as Error).message}`;
    throw new GatewayError('validation_error', message, { details: { fields: { [field]: message } } });
  }
}

/**
 * mock/image edits: the image (resized to `size`) with the prompt's pattern painted where
 * the mask (or, without one, the image itself) is fully transparent. Without any transparent
 * pixel, the pattern is blended over the whole picture so the edit stays visible.
 */
export function editImages(call: ImageEditCall): ImageResult {
  checkSize(call.width, call.height);
  const base = resize(decodeUpload(call.image.data, 'image'), call.width, call.height);
  const mask = call.mask ? resize(decodeUpload(call.mask.data, 'mask'), call.width, call.height) : base;
  let anyTransparent = false;
  for (let i = 3; i < mask.rgba.length; i += 4) {
    if (mask.rgba[i] === 0) {
      anyTransparent = true;
      break;
    }
  }
  const images = Array.from({ length: call.n }, (_, index) => {
    const pattern = drawPattern(call.width, call.height, call.prompt, call.seed, index);
    const out = new Uint8Array(base.rgba);
    for (let o = 0; o < out.length; o += 4) {
      const edit = anyTransparent ? mask.rgba[o + 3] === 0 : true;
      const weight = anyTransparent ? 1 : 0.5;
      if (edit) for (let k = 0; k < 3; k++) out[o + k] = Math.round(out[o + k] * (1 - weight) + pattern.rgba[o + k] * weight);
      out[o + 3] = 255;
    }
    return {
      data: encodePng({ width: call.width, height: call.height, rgba: out }),
      contentType: 'image/png',
      revisedPrompt: `${call.prompt} (mock edit ${index + 1} of ${call.n})`,
    };
  });
  return { images, usage: { inputTokens: Math.ceil(call.prompt.length / 4), outputTokens: 0 } };
}
