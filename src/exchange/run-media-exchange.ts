import type { Admission, AuthContext, PassedLimits } from '../accounts/index.ts';
import type { MediaUnits } from '../billing/index.ts';
import { GatewayError, isGatewayError, type RequestIds } from '../errors/index.ts';
import { callMedia, isNoMediaOutput, planCandidates, planMediaRoute, type MediaTask } from '../media/index.ts';
import type { RequestRecord } from '../observability/index.ts';
import type { Served, Settlement } from '../pipeline/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { buildRoutingHeaders } from '../routing/index.ts';
import type { AbortWatch } from '../util/index.ts';
import { noClient, UNBILLED } from './call-exchange.ts';
import { settleOnce } from './settle-once.ts';
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
  /** The URL's path, when the call came in over HTTP (a format's media face is admitted on `route`, the media route: LimitRequest.calledPath). */
  calledPath?: string;
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
   * The answer made of a result (stored images, a library record, a rendered transcript). Made
   * before the charge: when it throws (the data dir full), the client got nothing and nothing is
   * charged (the admission is released), whatever the provider did.
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
  /** Resolves once the call is charged and its record knows it (with the charge); never rejects. */
  settled: Promise<unknown>;
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

/** A count a charge can be made of: none said (undefined, null), or a finite number, 0 or more. */
const isCount = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0);

/**
 * The use read off a result, when every count in it is one: a negative duration would pay the
 * account, and text or NaN would price the call at NaN; a TypeError naming the count otherwise.
 */
function checkedUse(use: MediaUse): MediaUse {
  const counts: Array<[string, unknown]> = [
    ['usage.inputTokens', use.usage?.inputTokens],
    ['usage.outputTokens', use.usage?.outputTokens],
    ...Object.entries(use.media).map(([unit, value]): [string, unknown] => [unit, value]),
  ];
  for (const [name, value] of counts) if (!isCount(value)) throw new TypeError(`a media result whose ${name} is no count: ${String(value).slice(0, 40)}`);
  return use;
}

/**
 * What a result used; a result with none of what was asked (`{"data": []}`: NoMediaOutput) or one
 * its call cannot read (a plugin that broke the media contract, e.g. an image result without
 * `images`) is the provider's failure, 502, never the gateway's 500.
 */
function usedOf<T, R>(deps: ExchangeDeps, call: MediaCall<T, R>, served: Served<T>): MediaUse {
  try {
    return checkedUse(call.used(served.value));
  } catch (error) {
    if (isGatewayError(error)) throw error;
    const provider = served.model.provider.id;
    if (isNoMediaOutput(error)) {
      // Said as the provider's other failures are: who, and what it did.
      deps.log.warn('media answer empty', { provider, model: served.model.id, missing: error.missing });
      throw new GatewayError('provider_error', `The provider '${provider}' returned no ${error.missing}; nothing was charged.`, { cause: error, details: { provider } });
    }
    deps.log.error('media answer unreadable', { provider, model: served.model.id, error: String(error) });
    throw new GatewayError('provider_error', `The provider '${provider}' answered with a result the gateway cannot read (its plugin broke the media contract; the gateway's 'media answer unreadable' log line names it).`, {
      cause: error,
      details: { provider },
    });
  }
}

/**
 * One media exchange: plan the route over the models that can do the task, admit (priced by
 * the first candidate, scoped by all), call through the candidate loop, build the answer, settle
 * once (any failure before, the answer's too, releases the admission), and return the answer once
 * the usage ledger line is written.
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
          ...(call.calledPath !== undefined ? { calledPath: call.calledPath } : {}),
          clientAddress: call.clientAddress,
          model: candidates[0].id,
          servedBy: candidates,
          limits: call.limits,
          media: call.reserve,
          requestId: call.ids.requestId,
          ...(call.priceMultiplier !== undefined ? { priceMultiplier: call.priceMultiplier } : {}),
        });
  call.onHeaders?.(admission.headers);
  // The one settlement channel; billing never fails an answer that was already produced.
  const { settle, settled } = settleOnce(deps, admission, record);
  let served: Served<T>;
  let settlement: MediaSettlement;
  let value: R;
  // Everything up to the settlement releases the admission when it fails: a failed call, a result its `used` cannot read, or an answer that could not be made.
  try {
    served = await callMedia(deps.router, plan, call.client ?? noClient(), (model, signal) => call.run(model, signal), record);
    record?.servedBy(served.model.provider.id, served.model.id, served.fallback);
    call.onHeaders?.(buildRoutingHeaders(served.routing, served.fallback));
    settlement = mediaSettlement(served, usedOf(deps, call, served));
    value = await call.answer(served);
  } catch (error) {
    await settle(null);
    throw error;
  }
  void settle(settlement);
  if (admission.recording) await admission.recording;
  return { value, settled };
}
