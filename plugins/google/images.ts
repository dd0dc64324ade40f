import { GatewayError, type GeneratedImage, type ImageEditCall, type ImageGenerationCall, type ImageResult, type ModelSpec, type ProviderInstance } from 'gateway/plugin-kit';
import type { GooglePaths } from './endpoints.ts';
import { postJson, record, str, type GoogleCaller } from './post-json.ts';

/** What the image calls need from the plugin's setup (the caller's headers are the provider's configured ones). */
export interface GoogleImageContext extends GoogleCaller {
  providerId: string;
  paths: GooglePaths;
}

/** OpenAI `size` → Google's aspect ratio (both Imagen and Gemini's image models take these). */
const ASPECTS: Record<string, string> = {
  '1024x1024': '1:1',
  '1536x1024': '3:2',
  '1024x1536': '2:3',
  '1792x1024': '16:9',
  '1024x1792': '9:16',
  '1024x768': '4:3',
  '768x1024': '3:4',
};

const IMAGE_SIZES = Object.keys(ASPECTS);

/** Imagen: one `:predict` call makes up to four images. */
function imagen(id: string, displayName: string, image: number): ModelSpec {
  return { id, displayName, type: 'image_generation', pricing: { image }, sizes: IMAGE_SIZES, n: { min: 1, max: 4 } };
}

/** Imagen on `/v1/images/generations`, USD per image as Google's pricing page listed them in November 2026. */
export const IMAGEN_MODELS: ModelSpec[] = [
  imagen('imagen-4.0-generate-001', 'Imagen 4', 0.04),
  imagen('imagen-4.0-ultra-generate-001', 'Imagen 4 Ultra', 0.06),
  imagen('imagen-4.0-fast-generate-001', 'Imagen 4 Fast', 0.02),
];


function aspectOf(call: ImageGenerationCall): string | undefined {
  return ASPECTS[call.size] ?? ASPECTS[`${call.width}x${call.height}`];
}

/** Fields the gateway decides (the count, the size): a client's copy of them in `extra` is not sent twice. */
const OWN = new Set(['sampleCount', 'numberOfImages', 'aspectRatio', 'n', 'size']);

function extraOf(call: ImageGenerationCall): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(call.extra)) if (!OWN.has(key)) out[key] = value;
  return out;
}

/** The images in Imagen's `predictions` (a filtered one names its reason instead). */
function imagenImages(body: Record<string, unknown>): { images: GeneratedImage[]; filtered: string[] } {
  const images: GeneratedImage[] = [];
  const filtered: string[] = [];
  for (const prediction of Array.isArray(body.predictions) ? body.predictions : []) {
    const p = record(prediction);
    const data = str(p?.bytesBase64Encoded);
    if (data) images.push({ data: Buffer.from(data, 'base64'), contentType: str(p?.mimeType) ?? 'image/png' });
    else if (str(p?.raiFilteredReason)) filtered.push(str(p?.raiFilteredReason)!);
  }
  return { images, filtered };
}

/** The images (not drafts) and the text of a Gemini answer. */
function geminiImages(body: Record<string, unknown>): { images: GeneratedImage[]; text: string } {
  const candidate = record(Array.isArray(body.candidates) ? body.candidates[0] : undefined);
  const parts = Array.isArray(record(candidate?.content)?.parts) ? (record(candidate?.content)!.parts as unknown[]) : [];
  const images: GeneratedImage[] = [];
  let text = '';
  for (const raw of parts) {
    const part = record(raw);
    if (!part || part.thought === true) continue;
    const inline = record(part.inlineData);
    const data = str(inline?.data);
    if (data && str(inline?.mimeType)?.startsWith('image/')) images.push({ data: Buffer.from(data, 'base64'), contentType: str(inline?.mimeType)! });
    else if (typeof part.text === 'string') text += part.text;
  }
  return { images, text };
}

function nothingMade(providerId: string, why: string | undefined): GatewayError {
  return new GatewayError('content_filter', why ? `The provider '${providerId}' made no image: ${why}` : `The provider '${providerId}' made no image (its safety filters may have removed it).`);
}

/**
 * Google's image models on OpenAI's images endpoints: Imagen through `:predict` (the prompt as
 * the one instance, `sampleCount` = n, `aspectRatio` from size) and Gemini's image models through
 * `:generateContent` with `responseModalities: ['IMAGE']` (one call per image; an edit sends the
 * image, and the mask when given, before the prompt).
 */
export function googleImages(ctx: GoogleImageContext): NonNullable<ProviderInstance['images']> {
  const post = (path: string, body: unknown, signal: AbortSignal) => postJson(ctx, path, body, signal);

  async function predict(call: ImageGenerationCall): Promise<ImageResult> {
    const parameters: Record<string, unknown> = { sampleCount: call.n, ...extraOf(call) };
    const aspect = aspectOf(call);
    if (aspect) parameters.aspectRatio = aspect;
    if (call.seed !== undefined) parameters.seed = call.seed;
    if (call.negativePrompt !== undefined) parameters.negativePrompt = call.negativePrompt;
    const { images, filtered } = imagenImages(await post(ctx.paths.imagenPredict(call.model), { instances: [{ prompt: call.prompt }], parameters }, call.signal));
    if (images.length === 0) throw nothingMade(ctx.providerId, filtered[0]);
    return { images };
  }

  async function generateContent(call: ImageGenerationCall, inputs: Array<{ data: Uint8Array; contentType: string }>): Promise<ImageResult> {
    const generationConfig: Record<string, unknown> = { responseModalities: ['IMAGE'], ...extraOf(call) };
    const aspect = aspectOf(call);
    if (aspect) generationConfig.imageConfig = { aspectRatio: aspect };
    if (call.seed !== undefined) generationConfig.seed = call.seed;
    const parts: Record<string, unknown>[] = inputs.map((input) => ({ inlineData: { mimeType: input.contentType, data: Buffer.from(input.data).toString('base64') } }));
    parts.push({ text: call.prompt });
    const body = { contents: [{ role: 'user', parts }], generationConfig };
    // One image per call: Gemini's image models make one picture an answer.
    const answers = await Promise.all(Array.from({ length: call.n }, () => post(ctx.paths.gemini(call.model, false), body, call.signal)));
    const made = answers.map(geminiImages);
    const images = made.flatMap((m) => m.images);
    if (images.length === 0) throw nothingMade(ctx.providerId, made.find((m) => m.text.trim() !== '')?.text.trim());
    // Billed per image (the model's `image` price), as the images endpoint bills every model.
    return { images };
  }

  const isImagen = (call: ImageGenerationCall) => call.model.startsWith('imagen-');
  return {
    generate: (call) => (isImagen(call) ? predict(call) : generateContent(call, [])),
    edit: (call: ImageEditCall) => {
      if (isImagen(call)) throw new GatewayError('bad_request', `Imagen on '${ctx.providerId}' makes new images only; edit with a Gemini image model (gemini-2.5-flash-image).`);
      return generateContent(call, call.mask ? [call.image, call.mask] : [call.image]);
    },
  };
}
