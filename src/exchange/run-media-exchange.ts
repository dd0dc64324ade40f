import type { Admission, AuthContext, PassedLimits } from '../accounts/index.ts';
import type { MediaUnits } from '../billing/index.ts';
import type { RequestIds } from '../errors/index.ts';
import { callMedia, planCandidates, planMediaRoute, type MediaTask } from '../media/index.ts';
import type { RequestRecord } from '../observability/index.ts';
import type { Served, Settlement } from '../pipeline/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { buildRoutingHeaders } from '../routing/index.ts';
import type { AbortWatch } from '../util/index.ts';
import { noClient, UNBILLED } from './call-exchange.ts';
import type { ExchangeDeps } from './types.ts';

export type { MediaUnits };

/** A Settlement that also carries `media` units; billing reads them (see docs/media.md). */
export type MediaSettlement = Settlement & { media: MediaUnits };

/** What a media call used, read from its result: tokens when the provider said, and its units. */
export interface MediaUse {
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Input tokens to charge when the provider gave none. */
  estimatedInput: number;
  media: MediaUnits;
}

/** One media request (images, speech, transcription), free of any transport. */
export interface MediaCall<T, R> {
  task: MediaTask;
  /** The model the caller asked for. */
  model: string;
  /** Only models that pass this may serve (e.g. the image options they take). */
  accept?: (model: CatalogModel) => boolean;
  auth: AuthContext;
  route: string;
  clientAddress: string;
  /** The rate limits and slot this call already passed (before its body was read); the admission takes them over. */
  limits?: PassedLimits;
  ids: RequestIds;
  client?: AbortWatch;
  record?: RequestRecord;
  /** Units reserved at admission (images asked for, characters to speak, seconds of audio to transcribe). */
  reserve?: MediaUnits;
  /** One attempt at one model (fallbacks, retries, breakers and hedging run around it). */
  run(model: CatalogModel, signal: AbortSignal): Promise<T>;
  /** What a result used, for the settlement. */
  used(result: T): MediaUse;
  /**
   * The answer made of a result (stored images, a library record, a rendered transcript). The
   * provider did the work: the call is charged even if this throws.
   */
  answer(served: Served<T>): R | Promise<R>;
  /** Told the admission's headers, then the routing headers, as soon as each is known (an error answer carries them too). */
  onHeaders?(headers: Record<string, string>): void;
  /** Multiplies the price (batches.priceMultiplier for batch lines). */
  priceMultiplier?: number;
  /** False: never charged (a batch line billed before a crash lost its result). */
  billed?: boolean;
}

export interface MediaAnswer<R> {
  value: R;
  /** Resolves once the call is charged and its record knows it; never rejects. */
  settled: Promise<void>;
}


function mediaSettlement<T>(served: Served<T>, use: MediaUse): MediaSettlement {
  const settlement: MediaSettlement = {
    model: served.model,
    usage: { inputTokens: use.usage?.inputTokens ?? use.estimatedInput, outputTokens: use.usage?.outputTokens ?? 0 },
    estimated: use.usage?.inputTokens === undefined,
    aborted: false,
    routing: served.routing,
    media: use.media,
  };
  if (served.fallback) settlement.fallback = served.fallback;
  return settlement;
}

/**
 * One media exchange: plan the route over the models that can do the task, admit (priced by
 * the first candidate, scoped by all), call through the candidate loop, settle once, build the
 * answer, and return it once the usage ledger line is written.
 */
export async function runMediaExchange<T, R>(deps: ExchangeDeps, call: MediaCall<T, R>): Promise<MediaAnswer<R>> {
  const plan = planMediaRoute(deps.router, call.model, call.task, call.accept);
  const candidates = planCandidates(plan);
  const record = call.record;
  if (record) record.requestedModel ??= candidates[0]?.id;
  const admission: Admission =
    call.billed === false
      ? UNBILLED
      : await deps.guards.admit({
          auth: call.auth,
          method: 'POST',
          route: call.route,
          clientAddress: call.clientAddress,
          model: candidates[0].id,
          servedBy: candidates,
          limits: call.limits,
          media: call.reserve,
          requestId: call.ids.requestId,
          ...(call.priceMultiplier !== undefined ? { priceMultiplier: call.priceMultiplier } : {}),
        });
  call.onHeaders?.(admission.headers);
  let done!: () => void;
  const settled = new Promise<void>((resolve) => (done = resolve));
  if (record) record.settling = settled;
  // The one settlement channel; billing never fails an answer that was already produced.
  const settle = (settlement: Settlement | null): Promise<void> => {
    const charged = admission.settle(settlement).then(
      (charge) => record?.applySettlement(settlement, charge),
      (error: unknown) => deps.log.error('settle failed', { error: String(error) }),
    );
    void charged.then(done);
    return charged;
  };
  let served: Served<T>;
  try {
    served = await callMedia(deps.router, plan, call.client ?? noClient(), (model, signal) => call.run(model, signal), record);
  } catch (error) {
    await settle(null);
    throw error;
  }
  record?.servedBy(served.model.provider.id, served.model.id, served.fallback);
  call.onHeaders?.(buildRoutingHeaders(served.routing, served.fallback));
  void settle(mediaSettlement(served, call.used(served.value)));
  const value = await call.answer(served);
  if (admission.recording) await admission.recording;
  return { value, settled };
}
