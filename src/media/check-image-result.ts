import type { ImageResult } from '../plugin-kit/index.ts';
import { NoMediaOutput } from './no-media-output.ts';

/**
 * Throws a TypeError saying what is missing unless an image result holds at least one image (none: NoMediaOutput),
 * each with its bytes (a Uint8Array), its content type, and a revised prompt that is text when
 * given: a plugin broke the media contract, and the exchange answers 502 before anything is
 * charged (storing the images or serving their URLs would fail, or mislabel them, after it).
 */
export function checkImageResult(result: ImageResult): void {
  const images: unknown = (result as { images?: unknown } | undefined)?.images;
  if (!Array.isArray(images)) throw new TypeError('an image result without its images list');
  // The provider made none (an OpenAI-compatible `{"data": []}`): its failure, named so (NoMediaOutput).
  if (images.length === 0) throw new NoMediaOutput('images');
  // An index loop: a sparse list's hole is a missing image, which .some() would skip.
  for (let i = 0; i < images.length; i++) {
    const image: unknown = images[i];
    const { data, contentType, revisedPrompt } = typeof image === 'object' && image !== null ? (image as Record<string, unknown>) : {};
    if (!(data instanceof Uint8Array)) throw new TypeError(`an image result whose images[${i}] has no bytes (a Uint8Array)`);
    if (typeof contentType !== 'string' || contentType === '') throw new TypeError(`an image result whose images[${i}] has no content type`);
    if (revisedPrompt !== undefined && typeof revisedPrompt !== 'string') throw new TypeError(`an image result whose images[${i}].revisedPrompt is no text`);
  }
}

/**
 * The first `n` images of a result that holds more (the client asked for `n`; OpenAI never answers
 * more): the rest are neither served nor charged, and the output tokens a provider counted for all
 * of them are charged for the `n` kept (an image's share each). Any other result as it is.
 */
export function firstImages(result: ImageResult, n: number): ImageResult {
  const images: unknown = (result as { images?: unknown } | undefined)?.images;
  if (!Array.isArray(images) || images.length <= n) return result;
  const kept: ImageResult = { ...result, images: result.images.slice(0, n) };
  const output = result.usage?.outputTokens;
  if (result.usage && typeof output === 'number') kept.usage = { ...result.usage, outputTokens: Math.ceil((output * n) / images.length) };
  return kept;
}
