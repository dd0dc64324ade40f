import { GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/registry.ts';
import type { ModelCapability } from '../plugin-kit/types.ts';
import { mapTransportError, upstreamError, UpstreamHttpError } from '../upstream/index.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CatalogModel } from '../providers/types.ts';

/** What a media endpoint asks a model to do. */
export type MediaTask = 'image_generation' | 'image_edit' | 'speech' | 'transcription' | 'translation';

const TASK_LABEL: Record<MediaTask, string> = {
  image_generation: 'an image generation model',
  image_edit: 'an image model that supports edits',
  speech: 'a speech (text-to-speech) model',
  transcription: 'a transcription model',
  translation: 'an audio translation model',
};

const MEDIA_CAPS: ReadonlySet<ModelCapability> = new Set(['image_edit', 'speech', 'transcription', 'translation']);

/**
 * Whether a catalog model can do `task`: the type must match and the plugin must implement
 * the call. The capability must be listed too, unless the model lists no media capability at
 * all (a hand-written config entry such as `{ id: 'whisper-1', type: 'audio' }`).
 */
export function supportsTask(model: CatalogModel, task: MediaTask): boolean {
  const { spec, provider } = model;
  const caps = spec.capabilities ?? [];
  const declared = caps.some((c) => MEDIA_CAPS.has(c));
  const listed = (cap: ModelCapability) => caps.includes(cap) || !declared;
  const images = provider.instance.images;
  const audio = provider.instance.audio;
  switch (task) {
    case 'image_generation':
      return spec.type === 'image_generation' && Boolean(images?.generate);
    case 'image_edit':
      return spec.type === 'image_generation' && Boolean(images?.edit) && listed('image_edit');
    case 'speech':
      return spec.type === 'audio' && Boolean(audio?.speech) && listed('speech');
    case 'transcription':
      return spec.type === 'audio' && Boolean(audio?.transcribe) && listed('transcription');
    case 'translation':
      return spec.type === 'audio' && Boolean(audio?.transcribe) && listed('translation');
  }
}

/** The models that may serve `requested` for `task`, in provider priority order; 404/400 otherwise. */
export function mediaCandidates(registry: ProviderRegistry, requested: string, task: MediaTask): CatalogModel[] {
  const { candidates } = registry.resolve(requested);
  const usable = candidates.filter((m) => supportsTask(m, task));
  if (usable.length === 0) {
    throw new GatewayError('bad_request', `The model '${requested}' is not ${TASK_LABEL[task]}.`, { details: { model: requested } });
  }
  return usable.sort((a, b) => a.provider.priority - b.provider.priority);
}

/** Maps whatever a plugin's media call threw to a GatewayError. */
export function mapMediaError(model: CatalogModel, error: unknown, signal: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof UpstreamHttpError) {
    const said = getCodec('chat').decodeError(error.status, error.body);
    return upstreamError(model.provider.id, { ...said, status: error.status, headers: error.headers, phase: 'media' });
  }
  return mapTransportError(error, signal);
}

/**
 * Runs a media call on the first candidate that answers, falling back to the next one on a
 * retryable failure. The provider's total timeout and the client's disconnect abort the call.
 */
export async function callMedia<T>(
  candidates: CatalogModel[],
  clientSignal: AbortSignal,
  run: (model: CatalogModel, signal: AbortSignal) => Promise<T>,
): Promise<{ model: CatalogModel; result: T }> {
  let lastError: GatewayError | undefined;
  for (const model of candidates) {
    const controller = new AbortController();
    const onClientAbort = () => controller.abort(new GatewayError('bad_request', 'The client closed the connection.'));
    clientSignal.addEventListener('abort', onClientAbort, { once: true });
    const timer = setTimeout(() => {
      controller.abort(new GatewayError('provider_timeout', `The provider '${model.provider.id}' did not finish within ${model.provider.timeouts.total} ms.`));
    }, model.provider.timeouts.total);
    timer.unref();
    try {
      return { model, result: await run(model, controller.signal) };
    } catch (error) {
      lastError = mapMediaError(model, error, controller.signal);
      if (!lastError.retryable || clientSignal.aborted) throw lastError;
    } finally {
      clearTimeout(timer);
      clientSignal.removeEventListener('abort', onClientAbort);
    }
  }
  throw lastError ?? new GatewayError('provider_unavailable', 'No provider could serve the request.');
}
