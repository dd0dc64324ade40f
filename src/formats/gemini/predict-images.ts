import { GatewayError, validationError } from '../../errors/index.ts';
import { setOwn } from '../../util/index.ts';
import { isRecord } from '../shared/index.ts';
import type { ImagesFace } from '../types.ts';
import { readGeminiPath } from './read-path.ts';

const PREDICT = new Set(['predict']);

/** Imagen's aspect ratios → OpenAI sizes (the pairs the google plugin maps back to the same ratios); a Map: a ratio is client input, never a prototype key. */
const SIZES: ReadonlyMap<string, string> = new Map([
  ['1:1', '1024x1024'],
  ['3:2', '1536x1024'],
  ['2:3', '1024x1536'],
  ['16:9', '1792x1024'],
  ['9:16', '1024x1792'],
  ['4:3', '1024x768'],
  ['3:4', '768x1024'],
]);

/** The same pairs the other way: the aspect ratio a client sends for a size (each size has one). */
const RATIOS: ReadonlyMap<string, string> = new Map([...SIZES].map(([ratio, size]) => [size, ratio]));

/** OpenAI's images fields as Imagen's body names them, for refusals; the other parameters go on under their own names. */
const FIELDS: ReadonlyMap<string, string> = new Map([
  ['prompt', 'instances[0].prompt'],
  ['n', 'parameters.sampleCount'],
  ['size', 'parameters.aspectRatio'],
  ['negative_prompt', 'parameters.negativePrompt'],
  ['seed', 'parameters.seed'],
]);

/** Imagen's parameters the gateway reads; the others go on as the request's extra fields (an Imagen upstream gets them back). */
const READ = new Set(['sampleCount', 'aspectRatio', 'negativePrompt', 'seed', 'storageUri']);
/** OpenAI's images fields, which are not Imagen's parameters: never taken from `parameters` as extras. */
const OPENAI = new Set(['model', 'prompt', 'n', 'size', 'quality', 'style', 'response_format', 'negative_prompt', 'stream', 'partial_images']);

/** Whether every instance is an embedding's (`{content}`, no prompt): embedContent asks the same `:predict` of an image model. */
function embeddingInstances(instances: unknown): boolean {
  return Array.isArray(instances) && instances.length > 0 && instances.every((instance) => isRecord(instance) && typeof instance.content === 'string' && instance.prompt === undefined);
}

/** The one instance's prompt; 422 naming the field otherwise. */
function promptOf(body: Record<string, unknown>, model: string): string {
  const instances = body.instances;
  if (embeddingInstances(instances)) {
    throw new GatewayError('bad_request', `The model '${model}' is an image model: the instances hold content, as embedContent sends, and only an embedding model embeds it (\`gateway models ls\` lists them as embedding).`, { details: { model } });
  }
  if (!Array.isArray(instances) || instances.length !== 1) throw validationError({ instances: 'must hold exactly one instance' });
  const [instance] = instances;
  if (!isRecord(instance)) throw validationError({ 'instances[0].prompt': 'must be a string' });
  // The SDK's editImage, upscaleImage, recontextImage and segmentImage ask the same `:predict` with images (objects,
  // lists) in the instance, upscaleImage with no prompt: the image is named first, not a missing prompt.
  const keys = Object.keys(instance).filter((key) => key !== 'prompt');
  const other = keys.find((key) => typeof instance[key] === 'object' && instance[key] !== null) ?? (typeof instance.prompt === 'string' ? keys[0] : undefined);
  if (other !== undefined) throw validationError({ [`instances[0].${other}`]: 'is not served: only image generation from a prompt runs here (image edits: POST /v1/images/edits)' });
  if (typeof instance.prompt !== 'string') throw validationError({ 'instances[0].prompt': 'must be a string' });
  return instance.prompt;
}

/** Imagen's `parameters` → OpenAI's images fields (`n`, `size`, `negative_prompt`, `seed`) and the rest as they are. */
function fieldsOf(parameters: Record<string, unknown>): Record<string, unknown> {
  if (parameters.storageUri !== undefined) throw validationError({ 'parameters.storageUri': 'is not served: the gateway answers the images inline (bytesBase64Encoded)' });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (OPENAI.has(key)) throw validationError({ [`parameters.${key}`]: 'is not an Imagen parameter' });
    if (!READ.has(key)) setOwn(out, key, value);
  }
  if (parameters.sampleCount !== undefined) out.n = parameters.sampleCount;
  if (parameters.aspectRatio !== undefined) {
    const size = typeof parameters.aspectRatio === 'string' ? SIZES.get(parameters.aspectRatio) : undefined;
    if (size === undefined) throw validationError({ 'parameters.aspectRatio': `must be one of ${[...SIZES.keys()].join(', ')}` });
    out.size = size;
  }
  if (parameters.negativePrompt !== undefined) out.negative_prompt = parameters.negativePrompt;
  if (parameters.seed !== undefined) out.seed = parameters.seed;
  return out;
}

/**
 * Imagen's `:predict`, on Vertex AI's paths (`…/publishers/{p}/models/{m}:predict`, what `@google/genai`'s
 * `models.generateImages` asks in Vertex mode) and AI Studio's (`/v1beta/models/{m}:predict`, what the AI SDK's
 * `google.image()` asks; @google/genai 2.32 no longer does without Vertex):
 * `{instances: [{prompt}], parameters: {sampleCount, aspectRatio, negativePrompt, seed, …}}`
 * → `{predictions: [{bytesBase64Encoded, mimeType}]}`, served by the gateway's image models as
 * `POST /v1/images/generations` with `n`, `size` and `response_format: "b64_json"`. Without
 * `sampleCount` one image is made (Imagen makes four). The same URL of a model that makes no images is
 * the embeddings face's on Vertex's paths, the no-route 404 on AI Studio's.
 */
export const geminiImages: ImagesFace = {
  readPath(pathname, query) {
    const target = readGeminiPath(pathname, query, PREDICT);
    return target && { model: target.model };
  },
  decode(body, target) {
    const prompt = promptOf(body, target.model);
    const parameters = body.parameters;
    if (parameters !== undefined && parameters !== null && !isRecord(parameters)) throw validationError({ parameters: 'must be an object' });
    return { ...(isRecord(parameters) ? fieldsOf(parameters) : {}), model: target.model, prompt, response_format: 'b64_json' };
  },
  fieldOf(field) {
    // The model is the URL's; every other field came from `parameters`.
    return FIELDS.get(field) ?? (field === 'model' || field === 'response_format' ? undefined : `parameters.${field}`);
  },
  sizeOf(size) {
    return RATIOS.get(size);
  },
  encode(images) {
    return { predictions: images.map((image) => (image.revisedPrompt === undefined ? { bytesBase64Encoded: image.data, mimeType: image.mimeType } : { bytesBase64Encoded: image.data, mimeType: image.mimeType, prompt: image.revisedPrompt })) };
  },
};
