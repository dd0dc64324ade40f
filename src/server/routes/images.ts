import type { H3Event } from 'h3';
import { mediaCandidates, supportsTask, type MediaTask } from '../../media/index.ts';
import { checkImageResult, firstImages, fitImageOptions, imageOptionProblems } from '../../media/index.ts';
import { fileField, textField } from '../../media/index.ts';
import { decodeImageRequest, numericField, type ImageRequest } from '../../media/index.ts';
import { recordCompletedImage, renderImageEvents } from '../../media/index.ts';
import { readPngSize } from '../../media/index.ts';
import { validationError, isGatewayError, renameFields } from '../../errors/index.ts';
import type { ImageGenerationCall, ImageResult } from '../../plugin-kit/index.ts';
import { SSE_CONTENT_TYPE } from '../../sse/index.ts';
import type { CatalogModel } from '../../providers/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { requestState } from '../context.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { readMultipart } from '../read-multipart.ts';
import { json } from '../send.ts';
import type { AuthContext } from '../../accounts/index.ts';
import type { ServerDeps } from '../types.ts';
import type { FormatDefinition, ImagesFace } from '../../formats/index.ts';
import { noRoute } from '../hint-base-url.ts';
import type { RouteDef } from './types.ts';
import { mediaCallOf, publicOrigin } from './media-shared.ts';
import { runMediaExchange } from '../../exchange/index.ts';
import { recordNotWritten } from '../../store/index.ts';

const GENERATIONS = '/v1/images/generations';
const EDITS = '/v1/images/edits';
export const TEMP_IMAGES = '/v1/temp-images';

function toCall(request: ImageRequest, model: CatalogModel, signal: AbortSignal): ImageGenerationCall {
  return {
    model: model.upstreamId,
    modelId: model.spec.id,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    width: request.width,
    height: request.height,
    quality: request.quality,
    style: request.style,
    seed: request.seed,
    negativePrompt: request.negativePrompt,
    extra: request.extra,
    signal,
  };
}

/**
 * The parameters a library record keeps: the known, validated options that were asked (not the
 * prompt or the model). Unknown fields go upstream but are not stored: only bounded, known
 * values reach the Media Library.
 */
function recordedParameters(request: ImageRequest, operation: 'generate' | 'edit'): Record<string, unknown> {
  const out: Record<string, unknown> = { operation, n: request.n, size: request.size, response_format: request.responseFormat };
  if (request.quality !== undefined) out.quality = request.quality;
  if (request.style !== undefined) out.style = request.style;
  if (request.seed !== undefined) out.seed = request.seed;
  if (request.negativePrompt !== undefined) out.negative_prompt = request.negativePrompt;
  return out;
}

/** OpenAI's answer to an image request made (`makeImages`): JSON with URLs or base64, or its image stream. */
function renderImages(event: H3Event, request: ImageRequest, task: MediaTask, answer: Awaited<ReturnType<typeof makeImages>>): string {
  const { result, urls } = answer;
  if (request.stream) {
    event.res.headers.set('content-type', SSE_CONTENT_TYPE);
    event.res.headers.set('cache-control', 'no-cache');
    return renderImageEvents(task === 'image_edit' ? 'edit' : 'generation', request, result, answer.created);
  }
  const data = result.images.map((image, i) => {
    const revised_prompt = image.revisedPrompt ?? request.prompt;
    return request.responseFormat === 'b64_json' ? { b64_json: Buffer.from(image.data).toString('base64'), revised_prompt } : { url: urls[i], revised_prompt };
  });
  return json(event, { created: answer.created, data });
}

/**
 * Routes and calls one image request: stores every image for its temporary URL, records the
 * generation in the caller's Media Library and settles usage; the images and their URLs.
 */
async function makeImages(
  event: H3Event,
  deps: ServerDeps,
  auth: AuthContext,
  request: ImageRequest,
  sent: ReadonlySet<string>,
  task: MediaTask,
  invoke: (model: CatalogModel, call: ImageGenerationCall) => Promise<ImageResult>,
) {
  const route = task === 'image_edit' ? EDITS : GENERATIONS;
  // Per-model options (sizes, qualities, styles, n range): 422 before any credit is held.
  fitImageOptions(mediaCandidates(deps.registry, request.model, task), request, sent);
  const { value: answer } = await runMediaExchange(deps, {
    ...mediaCallOf(event, deps, auth, route),
    task,
    model: request.model,
    accept: (model) => Object.keys(imageOptionProblems(model.spec, request, sent)).length === 0,
    reserve: { images: request.n },
    run: async (model, signal) => servedImages(deps, model, request, await invoke(model, toCall(request, model, signal))),
    used: (result) => {
      // Read before the charge: no image, or one without its bytes or type, is the provider's failure (502, nothing charged), not a charged 500 when it is stored.
      checkImageResult(result);
      return { usage: result.usage, estimatedInput: Math.ceil(request.prompt.length / 4), media: { images: result.images.length } };
    },
    answer: (served) => storeImages(event, deps, auth, request, task, served.model, served.value),
  });
  event.res.headers.set('x-media-generation-id', answer.id);
  return answer;
}

/** The images of a result the client is served and charged: the first `n` it asked for, when the provider made more (logged). */
function servedImages(deps: ServerDeps, model: CatalogModel, request: ImageRequest, result: ImageResult): ImageResult {
  const kept = firstImages(result, request.n);
  if (kept !== result) deps.log.warn('images: the provider made more images than asked; the first n are served and charged', { provider: model.provider.id, model: model.id, n: request.n, made: result.images.length });
  return kept;
}

/**
 * Stores each image in the data dir for its temporary URL. One that cannot be written (ENOSPC,
 * EROFS, EACCES) fails the answer, before the charge: 503 naming storage, and the data dir is
 * reported unwritable (refused, /health) until its probe can write, as for a ledger line.
 */
async function putImages(deps: ServerDeps, origin: string, images: ImageResult['images']): Promise<string[]> {
  const urls: string[] = [];
  try {
    for (const image of images) urls.push(`${origin}${TEMP_IMAGES}/${(await deps.media.tempImages.put(image.data, image.contentType)).name}`);
  } catch (error) {
    deps.log.error('images: a generated image could not be stored; the answer fails, not charged', { error: String(error) });
    deps.guards.storage?.failed(error, 'a generated image');
    throw recordNotWritten(error, 'generated images');
  }
  return urls;
}

/** Stores every image for its temporary URL and records the generation in the caller's Media Library (the URLs, for a JSON answer). */
async function storeImages(event: H3Event, deps: ServerDeps, auth: AuthContext, request: ImageRequest, task: MediaTask, model: CatalogModel, result: ImageResult) {
  const urls = await putImages(deps, publicOrigin(event, deps), result.images);
  const first = result.images[0];
  const size = first ? readPngSize(first.data) : undefined;
  const record = await recordCompletedImage(deps.media.library, auth.account.id, {
    model: model.id,
    prompt: request.prompt,
    parameters: recordedParameters(request, task === 'image_edit' ? 'edit' : 'generate'),
    urls,
    width: size?.width ?? request.width,
    height: size?.height ?? request.height,
    fileSizeBytes: first ? first.data.byteLength : null,
    inputTokens: result.usage?.inputTokens,
    outputTokens: result.usage?.outputTokens,
  });
  return { id: record.id, created: record.created_at, urls, result };
}

const generate = (model: CatalogModel, call: ImageGenerationCall): Promise<ImageResult> => model.provider.instance.images!.generate!(call);

/**
 * An image request's body with the model to use when it names none (absent or null): the config's
 * `defaults.imageModel` when the operator set one (the OpenAI SDK lets `model` be left out, and
 * OpenAI then uses its default image model). Without it, `model` is required as spec §4.2 says:
 * the body as sent, which the decoder refuses with 400 for its missing model.
 */
function withDefaultImageModel(deps: ServerDeps) {
  return (body: Record<string, unknown>): Record<string, unknown> => {
    if (body.model !== undefined && body.model !== null) return body;
    const model = deps.config.defaults.imageModel;
    if (model === undefined) {
      const { model: _null, ...rest } = body;
      return rest;
    }
    return { ...body, model };
  };
}

/** POST /v1/images/generations (JSON). */
function generationsHandler(deps: ServerDeps) {
  const withModel = withDefaultImageModel(deps);
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const passing = passLimitsFirst(event, deps, auth, GENERATIONS);
    if (passing instanceof Promise) await passing;
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'inference')));
    const request = decodeImageRequest(withModel(body));
    return renderImages(event, request, 'image_generation', await makeImages(event, deps, auth, request, new Set(Object.keys(body)), 'image_generation', generate));
  };
}

/**
 * A format's own image-generation route (its face's `images`: Vertex AI's Imagen `…:predict`), with its
 * credentials: the body becomes OpenAI's and runs as `POST /v1/images/generations` does (stored,
 * recorded, billed per image); the images go back in the format's shape.
 */
export function formatImagesHandler(deps: ServerDeps, format: FormatDefinition, face: ImagesFace) {
  return async (event: H3Event): Promise<string> => {
    const target = face.readPath(event.url.pathname, event.url.searchParams);
    if (!target) throw noRoute(event.req.method, event.url.pathname);
    const auth = authenticateApiKey(event, deps, format.id);
    const passing = passLimitsFirst(event, deps, auth, GENERATIONS);
    if (passing instanceof Promise) await passing;
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'inference')));
    const openai = face.decode(body, target);
    const sent = new Set(Object.keys(openai));
    const request = namedAsSent(face, () => {
      const decoded = decodeImageRequest(openai);
      // makeImages checks the model's options again, at no cost: here its refusal can still be put in the client's words (sizes too).
      fitImageOptions(mediaCandidates(deps.registry, decoded.model, 'image_generation'), decoded, sent, face.sizeOf?.bind(face));
      return decoded;
    });
    const { result } = await makeImages(event, deps, auth, request, sent, 'image_generation', generate);
    const images = result.images.map((image) => ({ data: Buffer.from(image.data).toString('base64'), mimeType: image.contentType, ...(image.revisedPrompt === undefined ? {} : { revisedPrompt: image.revisedPrompt }) }));
    return json(event, face.encode(images, target));
  };
}

/** What `check` returns; a refusal it throws names the fields as the face's client sent them (Imagen's `parameters.sampleCount`, not `n`). */
function namedAsSent<T>(face: ImagesFace, check: () => T): T {
  try {
    return check();
  } catch (error) {
    const fieldOf = face.fieldOf;
    throw fieldOf && isGatewayError(error) ? renameFields(error, (field) => fieldOf.call(face, field)) : error;
  }
}

/** True when a model the gateway serves by this name makes images (a URL the images and embeddings faces both read goes by it). */
export function makesImages(deps: ServerDeps, model: string): boolean {
  return deps.registry.serves(model) && deps.registry.resolve(model).candidates.some((candidate) => supportsTask(candidate, 'image_generation'));
}

/** The text fields of a multipart edit, as the JSON validator expects them. */
function editFields(form: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value !== 'string' || key in body) continue;
    body[key] = key === 'n' || key === 'seed' ? numericField(value) : value;
  }
  return body;
}

/** POST /v1/images/edits (multipart: image, optional mask, prompt, model, n, size). */
function editsHandler(deps: ServerDeps) {
  const withModel = withDefaultImageModel(deps);
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    // The key's rate limit and slot before the multipart body is read (issue 27), like the JSON routes.
    const passing = passLimitsFirst(event, deps, auth, EDITS);
    if (passing instanceof Promise) await passing;
    const form = await readMultipart(event, bodyLimit(deps, 'media'));
    // GPT-image clients send `image[]`; the first image is the one edited.
    const image = (await fileField(form, 'image')) ?? (await fileField(form, 'image[]'));
    const mask = await fileField(form, 'mask');
    const fields = editFields(form);
    delete fields['image[]'];
    // One error names every bad field: the image upload and the text fields together.
    let request: ImageRequest | undefined;
    let problems: Record<string, string> = {};
    try {
      request = decodeImageRequest(withModel(fields));
    } catch (error) {
      if (!isGatewayError(error) || error.details?.fields === undefined) throw error;
      problems = { ...(error.details?.fields as Record<string, string>) };
    }
    if (!image) problems.image = form.has('image') || textField(form, 'image[]') !== undefined ? 'must be a file upload' : 'is required';
    if (!request || !image) throw validationError(problems);
    const edit = (model: CatalogModel, call: ImageGenerationCall) => model.provider.instance.images!.edit!({ ...call, image, mask });
    return renderImages(event, request, 'image_edit', await makeImages(event, deps, auth, request, new Set(Object.keys(fields)), 'image_edit', edit));
  };
}

/** The image routes. */
export function imageRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'POST', path: GENERATIONS, handler: generationsHandler(deps) },
    { method: 'POST', path: EDITS, handler: editsHandler(deps) },
  ];
}
