import { collectExtra, FieldChecker } from '../formats/index.ts';
import type { ImageGenerationCall } from '../plugin-kit/index.ts';

/** Spec §8.2 limits for images, and bounds of the other text fields (docs/limits.md). */
export const IMAGE_LIMITS = { promptChars: 4000, minN: 1, maxN: 10, maxSide: 4096, defaultSize: '1024x1024', modelChars: 256, optionChars: 64 } as const;

export type ImageResponseFormat = 'url' | 'b64_json';

/** A validated image generation (or edit) request: the provider call without its signal, plus the answer's shape. */
export interface ImageRequest extends Omit<ImageGenerationCall, 'signal'> {
  responseFormat: ImageResponseFormat;
  /** Answer as OpenAI's image stream (one `…completed` event per image); the provider is asked as usual. */
  stream: boolean;
}

/** `partial_images` (OpenAI's 0-3): accepted with `stream`; the gateway sends the final images only, which that contract allows. */
const MAX_PARTIAL_IMAGES = 3;

const KNOWN = new Set(['model', 'prompt', 'n', 'size', 'quality', 'style', 'response_format', 'negative_prompt', 'seed', 'stream', 'partial_images']);
const SIZE = /^(\d{1,5})x(\d{1,5})$/;

/** `WxH` → pixels; `auto` → the default size. Undefined when malformed or out of range. */
export function parseSize(size: string): { width: number; height: number } | undefined {
  const match = SIZE.exec(size === 'auto' ? IMAGE_LIMITS.defaultSize : size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width < 1 || height < 1 || width > IMAGE_LIMITS.maxSide || height > IMAGE_LIMITS.maxSide) return undefined;
  return { width, height };
}

/** Multipart fields are text: turns integer-looking text into a number so one checker serves both. */
export function numericField(value: unknown): unknown {
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

/** Validates an image request body (JSON, or the text fields of a multipart edit); 422 lists every bad field. */
export function decodeImageRequest(body: Record<string, unknown>): ImageRequest {
  const check = new FieldChecker();
  const model = check.requiredString(body.model, 'model');
  if (typeof body.model === 'string' && body.model.trim() === '') check.fail('model', 'must not be empty');
  const prompt = check.requiredString(body.prompt, 'prompt');
  if (typeof body.prompt === 'string') {
    if (prompt.trim() === '') check.fail('prompt', 'must not be empty');
    else if ([...prompt].length > IMAGE_LIMITS.promptChars) check.fail('prompt', `must be at most ${IMAGE_LIMITS.promptChars} characters`);
  }
  const n = check.number(body.n, 'n', { integer: true, min: IMAGE_LIMITS.minN, max: IMAGE_LIMITS.maxN }) ?? 1;
  const size = check.string(body.size, 'size') ?? IMAGE_LIMITS.defaultSize;
  const dimensions = parseSize(size);
  if (typeof body.size === 'string' && !dimensions) {
    check.fail('size', `must be WxH (each side 1-${IMAGE_LIMITS.maxSide}, e.g. 1024x1024) or auto`);
  }
  const quality = check.string(body.quality, 'quality');
  const style = check.string(body.style, 'style');
  const responseFormat = check.oneOf(body.response_format, 'response_format', ['url', 'b64_json'] as const) ?? 'url';
  const seed = check.number(body.seed, 'seed', { integer: true });
  const negativePrompt = check.string(body.negative_prompt, 'negative_prompt');
  // Multipart fields are text: the SDKs send `stream` as "true" or "false".
  const stream = check.boolean(body.stream === 'true' ? true : body.stream === 'false' ? false : body.stream, 'stream') ?? false;
  check.number(numericField(body.partial_images), 'partial_images', { integer: true, min: 0, max: MAX_PARTIAL_IMAGES });
  check.maxLength(body.model, 'model', IMAGE_LIMITS.modelChars);
  check.maxLength(quality, 'quality', IMAGE_LIMITS.optionChars);
  check.maxLength(style, 'style', IMAGE_LIMITS.optionChars);
  if (negativePrompt !== undefined && [...negativePrompt].length > IMAGE_LIMITS.promptChars) {
    check.fail('negative_prompt', `must be at most ${IMAGE_LIMITS.promptChars} characters`);
  }
  check.throwIfAny();
  return {
    model,
    prompt,
    n,
    size,
    width: dimensions!.width,
    height: dimensions!.height,
    quality,
    style,
    responseFormat,
    seed,
    negativePrompt,
    stream,
    extra: collectExtra(body, KNOWN) ?? {},
  };
}
