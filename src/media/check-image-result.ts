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

