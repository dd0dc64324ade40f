import { GatewayError } from '../errors/index.ts';
import type { ModelCapability } from '../plugin-kit/index.ts';
import { mapPluginError, tryCandidates, UpstreamAttempt, type Served } from '../pipeline/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { Router, RoutePlan } from '../routing/index.ts';
import { watchOf, type AbortWatch } from '../util/index.ts';
import type { AttemptObserver } from '../observability/index.ts';

/** What a media endpoint asks a model to do. */
export type MediaTask = 'image_generation' | 'image_edit' | 'speech' | 'transcription' | 'translation' | 'embedding' | 'moderation';

const TASK_LABEL: Record<MediaTask, string> = {
  image_generation: 'an image generation model',
  image_edit: 'an image model that supports edits',
  speech: 'a speech (text-to-speech) model',
  transcription: 'a transcription model',
  translation: 'an audio translation model',
  embedding: 'an embedding model',
  moderation: 'a moderation model',
};

const MEDIA_CAPS: ReadonlySet<ModelCapability> = new Set(['image_edit', 'speech', 'transcription', 'translation']);

/**
 * Whether a catalog model can do `task`: the type must match and the plugin must implement
 * the call. The capability must be listed too, unless the model lists no media capability at
 * all (a hand-written config entry such as `{ id: 'whisper-1', type: 'audio' }`).
 */
/** An image model, or a chat model whose answers hold images (Gemini's image models) when its provider serves the images calls. */
function makesImages(spec: CatalogModel['spec']): boolean {
  return spec.type === 'image_generation' || (spec.type === 'chat' && spec.modalities?.output?.includes('image') === true);
}

export function supportsTask(model: CatalogModel, task: MediaTask): boolean {
  const { spec, provider } = model;
  const caps = spec.capabilities ?? [];
  const declared = caps.some((c) => MEDIA_CAPS.has(c));
  const listed = (cap: ModelCapability) => caps.includes(cap) || !declared;
  const images = provider.instance.images;
  const audio = provider.instance.audio;
  switch (task) {
    case 'image_generation':
      return makesImages(spec) && Boolean(images?.generate);
    case 'image_edit':
      return makesImages(spec) && Boolean(images?.edit) && listed('image_edit');
    case 'speech':
      return spec.type === 'audio' && Boolean(audio?.speech) && listed('speech');
    case 'transcription':
      return spec.type === 'audio' && Boolean(audio?.transcribe) && listed('transcription');
    case 'translation':
      return spec.type === 'audio' && Boolean(audio?.transcribe) && listed('translation');
    case 'embedding':
      return spec.type === 'embedding' && Boolean(provider.instance.embeddings);
    case 'moderation':
      return spec.type === 'moderation' && Boolean(provider.instance.moderations);
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

/**
 * The route of a media request, planned like a chat request (strategy, the config's fallback
 * chain) over the models that can do `task`: 404 for an unknown model, 400 when it cannot do it.
 */
export function planMediaRoute(router: Router, requested: string, task: MediaTask, accept?: (model: CatalogModel) => boolean): RoutePlan {
  mediaCandidates(router.registry, requested, task);
  return router.plan(requested, (model) => supportsTask(model, task) && (accept === undefined || accept(model)));
}

/** Every model a media plan may call, in order (what the request guards scope and price by). */
export function planCandidates(plan: RoutePlan): CatalogModel[] {
  return [...plan.primary, ...plan.chain];
}

/** Maps whatever a plugin's media call threw to a GatewayError. */
export function mapMediaError(model: CatalogModel, error: unknown, signal: AbortSignal): GatewayError {
  return mapPluginError(model.provider.id, 'chat', error, signal, 'media');
}

/** One media call with its abort wiring: the client leaving, the provider's total timeout, a lost hedge race. */
async function attemptMedia<T>(
  model: CatalogModel,
  client: AbortWatch,
  hedgeSignal: AbortSignal | undefined,
  run: (model: CatalogModel, signal: AbortSignal) => Promise<T>,
  attempts: AttemptObserver | undefined,
): Promise<T> {
  const attempt = new UpstreamAttempt(model, hedgeSignal ? watchOf(AbortSignal.any([client.signal, hedgeSignal])) : client);
  attempts?.attemptStarted(model.provider.id, model.id, model.upstreamId);
  try {
    const running = run(model, attempt.signal);
    attempts?.attemptDispatched();
    const value = await running;
    attempts?.attemptSucceeded(model.provider.id, model.id);
    return value;
  } catch (error) {
    const mapped = mapMediaError(model, error, attempt.signal);
    attempts?.attemptFailed(model.provider.id, model.id, mapped.code);
    throw mapped;
  } finally {
    attempt.done();
  }
}

/**
 * Runs a media call through the same candidate loop as chat (tryCandidates): retryable
 * failures fall back or retry with backoff, circuit breakers, the routing strategy and hedging
 * apply. The provider's total timeout and the client's disconnect abort each call. A failure
 * carries the routing headers, as on chat.
 */
export function callMedia<T>(
  router: Router,
  plan: RoutePlan,
  client: AbortWatch,
  run: (model: CatalogModel, signal: AbortSignal) => Promise<T>,
  attempts?: AttemptObserver,
): Promise<Served<T>> {
  return tryCandidates(router, plan, client, (model, hedgeSignal) => attemptMedia(model, client, hedgeSignal, run, attempts));
}
