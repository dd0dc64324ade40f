import { discountOf, isPriced, mediaUnitsOf, priceMedia, priceTokens, priceWebSearches, roundCredits, type BillingConfig } from '../billing/index.ts';
import type { CreditHold, CreditsPort, HoldInput, PricedEntry, Settled } from '../credits/index.ts';
import { GatewayError, isGatewayError } from '../errors/index.ts';
import {
  buildRateLimitHeaders,
  concurrencyExceededError,
  priorityForTier,
  rateLimitExceededError,
  resolveConcurrency,
  resolveLimit,
  type ConcurrencyLease,
  type LimitSubject,
  type RateLimitConfig,
  type RateLimitResult,
  type RateLimitStore,
  type ResolvedLimit,
} from '../limits/index.ts';
import type { Settlement } from '../pipeline/index.ts';
import type { ModelPricing } from '../plugin-kit/index.ts';
import type { CatalogModel, ProviderRegistry } from '../providers/index.ts';
import type { RoutingConfig } from '../config/index.ts';
import type { SettledCharge } from '../observability/index.ts';
import type { Store } from '../store/index.ts';
import type { StorageHealth } from '../store/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/index.ts';
import { andThen, isPromise, reportedCount, type Clock, type Logger, type MaybePromise } from '../util/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import { answerFields } from './answer-fields.ts';
import { checkServedTier, modelTerms } from './check-model-access.ts';
import { holdImageTool, priceImageTool } from './price-image-tool.ts';
import { heldOutputCap } from './held-output-cap.ts';
import { checkEndpointScope, checkModelScope, createModelsThatMayServe } from './key-scope.ts';
import { currentKey } from './current-key.ts';
import type { Admission, AdmissionRequest, AnonymousRequest, LimitRequest, LimitsStoreState, PassedLimits, RequestGuards, UsageViews } from './types.ts';
import { AccountUsageViews } from './usage-views.ts';
import { CredentialLockout } from './credential-lockout.ts';

export interface AccountGuardsOptions {
  limits: RateLimitConfig;
  billing: BillingConfig;
  limiter: RateLimitStore;
  store: Store;
  registry: ProviderRegistry;
  /** The credit engine (chosen once at start-up by the composition root): holds, charges, the read views. */
  credits: CreditsPort;
  /** Whether the data dir can be written: billed requests are refused while it cannot. */
  storage: StorageHealth;
  clock: Clock;
  log: Logger;
  /** Fallback chains, so a scoped key cannot reach a model outside its scope through one. */
  routing?: RoutingConfig;
  /**
   * Time passed to the limiter; undefined lets each store use its own clock (Redis: the
   * server's TIME, so every instance agrees). Tests that move the clock pass it.
   */
  limiterNow?: () => number;
}

/** Copies an error with extra headers (the rate-limit headers go on every limited answer). */
function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (!isGatewayError(error)) return error;
  return new GatewayError(error.code, error.message, {
    status: error.status,
    details: error.details,
    retryAfter: error.retryAfter,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
    headers: { ...headers, ...error.headers },
  });
}

/** What the rate-limit check found. */
interface CheckedLimits {
  limit: ResolvedLimit | null;
  result: RateLimitResult | null;
  lease: ConcurrencyLease | null;
}

/** The route batch lines are admitted on. */
const BATCH_ROUTE = '/v1/batches';

/**
 * A request a client waits for: it names a model and is neither a batch line nor settled where
 * nobody waits (`untilBilled`: a media job, whose admission lasts as long as the job).
 */
function isLive(request: AdmissionRequest): boolean {
  return request.model !== undefined && request.route !== BATCH_ROUTE && request.untilBilled !== true;
}

/** Gives a concurrency slot back (at once with an in-process store); a lost release only holds the slot until its expiry. */
function releaseLease(lease: ConcurrencyLease, log?: Logger): void {
  const released = lease.release();
  if (isPromise(released)) void released.catch((error: unknown) => log?.warn('releasing a concurrency slot failed', { error: String(error) }));
}

/** Limits passed before the body was read: the admission takes them over, or `release` gives the slot back. */
class PassedAccountLimits implements PassedLimits {
  private taken = false;

  constructor(private readonly checked: CheckedLimits) {}

  /** For the admission: the limits, once (a second admission with the same pass checks again). */
  take(): CheckedLimits | undefined {
    if (this.taken) return undefined;
    this.taken = true;
    return this.checked;
  }

  release(): void {
    const checked = this.take();
    if (checked?.lease) releaseLease(checked.lease);
  }
}

/** What a resumed request (`AdmissionRequest.resumed`) passes: no window, no slot. */
const UNCOUNTED: CheckedLimits = { limit: null, result: null, lease: null };

/** The limits a request passed before its body was read, taken over by its admission; a resumed one passes uncounted. */
function passedOf(request: AdmissionRequest): CheckedLimits | undefined {
  if (request.resumed === true) return UNCOUNTED;
  return request.limits instanceof PassedAccountLimits ? request.limits.take() : undefined;
}

/** A granted admission; `settle` runs once (a class: no closures per request). */
class AccountAdmission implements Admission {
  private settled = false;
  recording: Promise<unknown> | undefined;

  constructor(
    private readonly guards: AccountGuards,
    private readonly request: AdmissionRequest,
    readonly headers: Record<string, string>,
    private readonly lease: ConcurrencyLease | null,
    private readonly hold: CreditHold | undefined,
  ) {}

  settle(settlement: Settlement | null): Promise<SettledCharge | void> {
    if (this.settled) return Promise.resolve();
    this.settled = true;
    try {
      const { charge, recorded } = this.guards.settleAdmission(this.request, this.lease, this.hold, settlement);
      if (!recorded) return Promise.resolve(charge);
      // One promise: `recording` (waited for by the route) resolves with the charge.
      const recording = recorded.then(() => {
        this.recording = undefined;
        return charge;
      });
      // A line that could not be written rejects (503): the route fails the answer; stays set so the end is never sent.
      recording.catch(() => undefined);
      this.recording = recording;
      return recording;
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** 403 model_unpriced: `billing.unpriced: 'reject'` and no price is known for a model that may serve. */
function unpricedError(requested: string, model: string): GatewayError {
  return new GatewayError(
    'model_unpriced',
    `The model '${model}' has no price, and this gateway refuses unpriced models (billing.unpriced: 'reject'). Add a price to its config entry (pricing: { input, output }) or choose another model.`,
    { details: { model: requested, unpriced: model } },
  );
}

/**
 * The request guards of spec §1, §5 and §8: rate limits (sliding window, resolution order,
 * exemptions), per-key concurrency slots, model scopes and tiers, and the price of a request;
 * its credits are held and charged by the credit engine behind `CreditsPort` (which one, the
 * composition root chose at start-up; the guards cannot tell).
 */
export class AccountGuards implements RequestGuards {
  readonly credits: CreditsPort;
  readonly limiter: RateLimitStore;
  readonly limits: RateLimitConfig;
  readonly billing: BillingConfig;
  readonly usageViews: UsageViews;
  readonly storage: StorageHealth;
  /** Admissions granted and not settled yet: a record is written at once when no other may join its group. */
  private inFlight = 0;
  /** Admitted model requests in flight that are not batch lines (batch lines run below them). */
  private live = 0;
  /** The models a requested id may be served by, remembered per id (a key's model scope must cover them all). */
  private readonly modelsThatMayServe: (requested: string, fallbacks?: readonly string[]) => CatalogModel[];
  /** Client addresses locked out for failed credentials. */
  private readonly lockout: CredentialLockout;

  constructor(private readonly o: AccountGuardsOptions) {
    this.credits = o.credits;
    this.limiter = o.limiter;
    this.limits = o.limits;
    this.billing = o.billing;
    this.storage = o.storage;
    this.usageViews = new AccountUsageViews(o.store, o.credits, o.limits, o.clock);
    this.modelsThatMayServe = createModelsThatMayServe(o.registry, o.routing);
    this.lockout = new CredentialLockout({ limiter: o.limiter, max: o.limits.failedCredentials, windowMs: o.limits.windowMs, now: () => o.clock.now(), limiterNow: o.limiterNow });
  }

  /** The state of a rate-limit store in another process (Redis), read from memory; undefined for limits kept in this process. */
  limitsStore(): LimitsStoreState | undefined {
    const limiter = this.limiter;
    if (!limiter.reachable) return undefined;
    return { store: 'redis', reachable: limiter.reachable(), on_error: limiter.onError ?? 'open' };
  }

  /** The usage aggregates of every account (admin views). */
  async usageSnapshot(): Promise<UsageIndex> {
    return (await this.o.credits.read()).usage;
  }

  /** At once when the limiter and the credit engine both answer at once; else a promise. A refusal is a rejected promise, never a throw. */
  admit(request: AdmissionRequest): MaybePromise<Admission> {
    try {
      return this.admitting(request);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  chargeDone(request: AdmissionRequest, settlement: Settlement): Promise<SettledCharge | void> {
    // Counted in flight as an admission is (settling counts it out), so its line joins a group like theirs.
    this.inFlight += 1;
    return new AccountAdmission(this, request, {}, null, undefined).settle(settlement);
  }

  passLimits(request: LimitRequest): MaybePromise<PassedLimits> {
    return andThen(this.checkLimits(this.subjectOf(request), request.auth.account), (checked) => new PassedAccountLimits(checked));
  }

  /** The limits (passed before the body, or checked now), then the hold; at once when every guard answers at once. */
  private admitting(request: AdmissionRequest): MaybePromise<Admission> {
    // No answer without its record: while the data dir cannot be written, billed requests are refused before any upstream call.
    if (request.model) this.o.storage.check();
    const passed = passedOf(request);
    if (passed) return this.grant(request, passed);
    return andThen(this.checkLimits(this.subjectOf(request), request.auth.account), (checked) => this.grant(request, checked));
  }

  private subjectOf(request: LimitRequest): LimitSubject {
    const { account, key } = request.auth;
    // Also here, not only at authentication: callers that admit without an HTTP request (batch lines) meet the scope too.
    checkEndpointScope(key, request.route, request.method, request.calledPath);
    return {
      method: request.method,
      path: request.route,
      ip: request.clientAddress,
      apiKey: { id: key.id, rpm: key.rpm },
      account: { id: account.id, tier: account.tier, rpm: account.rpm },
    };
  }

  /** The limits passed: price the request, hold its credits and hand out the admission (the slot goes back if the hold is refused). */
  private grant(request: AdmissionRequest, checked: CheckedLimits): MaybePromise<Admission> {
    const { limit, result, lease } = checked;
    const account = request.auth.account;
    const headers = buildRateLimitHeaders({ result, scope: limit?.scope, tier: account.tier, concurrencyRemaining: lease?.remaining });
    const refused = (error: unknown): never => {
      if (lease) releaseLease(lease);
      throw withHeaders(error, headers);
    };
    let held: MaybePromise<CreditHold> | undefined;
    try {
      const priced = this.price(request, account);
      held = priced && this.o.credits.hold(priced);
    } catch (error) {
      return refused(error);
    }
    if (held && isPromise(held)) return held.then((hold) => this.admitted(request, headers, lease, hold), refused);
    return this.admitted(request, headers, lease, held);
  }

  private admitted(request: AdmissionRequest, headers: Record<string, string>, lease: ConcurrencyLease | null, hold: CreditHold | undefined): Admission {
    this.inFlight += 1;
    if (isLive(request)) this.live += 1;
    return new AccountAdmission(this, request, headers, lease, hold);
  }

  /** Settles an admission once: gives its slot back, then charges (or releases) its hold. */
  settleAdmission(request: AdmissionRequest, lease: ConcurrencyLease | null, hold: CreditHold | undefined, settlement: Settlement | null): Partial<Settled> {
    this.inFlight -= 1;
    if (isLive(request)) this.live -= 1;
    if (lease) releaseLease(lease, this.o.log);
    if (!settlement) {
      if (hold) this.o.credits.release(hold);
      return {};
    }
    const { account, key } = request.auth;
    const settled = this.o.credits.settle({
      hold,
      account: this.o.store.cache.account(account.id) ?? account,
      key: currentKey(this.o.store, key),
      entry: this.ledgerEntry(request, settlement, hold?.credits ?? 0),
      // Alone in flight: nobody can join a group, so the record is written at once.
      alone: this.inFlight === 0,
      untilBilled: request.untilBilled === true || request.route === BATCH_ROUTE,
    });
    const { cost, charged } = settled.charge;
    if (hold && hold.credits > 0 && cost > hold.credits) this.beyondHold(request, hold.credits, cost, charged);
    return settled;
  }

  credentialLockout(clientAddress: string): GatewayError | undefined {
    return this.lockout.refusal(clientAddress);
  }

  credentialFailed(clientAddress: string): MaybePromise<GatewayError | undefined> {
    return this.lockout.failed(clientAddress);
  }

  /** Login and other unauthenticated routes: limited per client address (spec §8.1). */
  async admitAnonymous(request: AnonymousRequest): Promise<Record<string, string>> {
    const limit = resolveLimit({ method: request.method, path: request.route, ip: request.clientAddress }, this.limits);
    if (!limit) return { 'X-Request-Priority': String(priorityForTier(undefined)) };
    const result = await this.o.limiter.hit(limit.key, limit.limit, limit.windowMs, this.o.limiterNow?.());
    if (!result.allowed) throw rateLimitExceededError(result, limit);
    return buildRateLimitHeaders({ result, scope: limit.scope });
  }

  /**
   * The rate-limit hit and the concurrency slot, asked of the store together (one round trip
   * of latency on Redis instead of two); judged at once when the store answered at once.
   * Throws (or rejects with) 429; a slot taken by a throttled request is given back.
   */
  private checkLimits(subject: LimitSubject, account: AccountRecord): MaybePromise<CheckedLimits> {
    const limiter = this.o.limiter;
    const limit = resolveLimit(subject, this.limits);
    const cap = resolveConcurrency(subject, this.limits);
    const hit = limit ? limiter.hit(limit.key, limit.limit, limit.windowMs, this.o.limiterNow?.()) : null;
    const slot = cap ? limiter.acquire(cap.key, cap.max, cap.ttlMs) : null;
    if (isPromise(hit) || isPromise(slot)) return this.judgeAnswered(limit, cap, hit, slot, account);
    return this.judgeLimits(limit, cap, hit, slot, account);
  }

  /** judgeLimits once a store that answers later (Redis) answered both (a failed hit gives back a slot that was taken). */
  private async judgeAnswered(
    limit: ResolvedLimit | null,
    cap: { max: number } | null,
    hit: MaybePromise<RateLimitResult | null>,
    slot: MaybePromise<ConcurrencyLease | null>,
    account: AccountRecord,
  ): Promise<CheckedLimits> {
    const [result, taken] = await Promise.allSettled([hit, slot]);
    const lease = taken.status === 'fulfilled' ? taken.value : null;
    if (result.status === 'rejected') {
      if (lease) releaseLease(lease);
      throw result.reason;
    }
    if (taken.status === 'rejected') throw taken.reason;
    return this.judgeLimits(limit, cap, result.value, lease, account);
  }

  /** Throws 429 for a throttled hit or no free slot (giving back a slot it took); else the outcome. */
  private judgeLimits(
    limit: ResolvedLimit | null,
    cap: { max: number } | null,
    result: RateLimitResult | null,
    lease: ConcurrencyLease | null,
    account: AccountRecord,
  ): CheckedLimits {
    if (limit && result && !result.allowed) {
      if (lease) releaseLease(lease);
      const error = rateLimitExceededError(result, limit, account.tier);
      if (!cap) throw error;
      // Spec §8.1's headers on the refusal too: the slot taken with the hit went back, so it is free again.
      throw withHeaders(error, { 'X-Concurrency-Remaining': String(lease ? lease.remaining + 1 : 0) });
    }
    if (cap && !lease) {
      const error = concurrencyExceededError(cap.max, account.tier);
      throw withHeaders(error, buildRateLimitHeaders({ result, scope: limit?.scope, tier: account.tier, concurrencyRemaining: 0 }));
    }
    return { limit, result, lease };
  }

  /**
   * Model scope and the unpriced policy, then what the request may cost at most (credits) and
   * its input tokens, for the credit engine to hold; undefined without a model.
   */
  private price(request: AdmissionRequest, account: AccountRecord): HoldInput | undefined {
    if (!request.model) return undefined;
    const current = this.o.store.cache.account(account.id) ?? account;
    const key = currentKey(this.o.store, request.auth.key);
    const mayServe = request.servedBy ?? this.modelsThatMayServe(request.model, request.fallbacks);
    if (key.models) checkModelScope(key, request.model, mayServe);
    checkServedTier(request.model, mayServe, current.tier);
    // Priced as the dearest of them: a fallback may serve it.
    const terms = modelTerms(this.o.registry, request.model, current.tier, mayServe);
    if (terms.unpriced && this.billing.unpriced === 'reject') throw unpricedError(request.model, terms.unpriced);
    const inputTokens = Math.max(0, Math.ceil(request.estimatedInputTokens ?? 0));
    // The hold rule (docs/billing.md): the worst case — what the client caps the output at, else
    // the model's maximum output (`billing.reserveOutputTokens` for a model that states none); a
    // thinking budget on top of the cap only where a model that may serve it answers past the cap.
    const cap = request.thinkingOnTop === undefined ? request.maxOutputTokens : heldOutputCap(request, mayServe);
    const outputTokens = Math.min(cap ?? Infinity, terms.maxOutputTokens ?? cap ?? this.billing.reserveOutputTokens);
    const factor = request.priceMultiplier ?? 1;
    // Media units the route expects (images asked for, characters to speak, audio seconds); one image when it does not say.
    const media = priceMedia(terms.pricing, request.media ?? { images: 1 }, factor);
    // A hosted web search: its max_uses (a positive count), else the default bound, no more than
    // one answer is billed for (a model billed per grounded answer), at the highest webSearch price.
    const searches = request.webSearch ? priceWebSearches(terms.pricing, this.searchesToHold(request.webSearch.maxUses, terms.pricing), factor) : 0;
    // OpenAI's image tool: the images it may make at the image model's prices (none of the model's own).
    const images = request.imageTool ? holdImageTool(this.o.registry, this.modelsThatMayServe(request.model), request.imageTool, inputTokens, factor) : 0;
    const credits = roundCredits(priceTokens(terms.pricing, inputTokens, outputTokens, factor) + media + searches + images);
    // Fails closed: a NaN hold passes every balance check (`credits > available` is false) and
    // makes the account's held credits NaN, so no later request of it would be refused.
    if (!(credits >= 0 && credits < Infinity)) throw this.unpriceable(request, 'hold', credits);
    return { requestId: request.requestId, account: current, key, credits, tokens: inputTokens, needsBalance: isPriced(terms.pricing) || searches > 0 || images > 0 };
  }

  /** How many web searches a request's hold covers: its `max_uses`, else `billing.reserveWebSearches`, at most what one answer is billed for. */
  private searchesToHold(maxUses: number | undefined, pricing: ModelPricing | undefined): number {
    const asked = reportedCount(maxUses) ?? this.billing.reserveWebSearches;
    return Math.min(asked, pricing?.webSearchesPerAnswer ?? asked);
  }

  /** The ledger line of a settlement, priced (after discount and multiplier); the engine decides what it charges. */
  private ledgerEntry(request: AdmissionRequest, settlement: Settlement, held: number): PricedEntry {
    const { account, key } = request.auth;
    const multiplier = request.priceMultiplier ?? 1;
    const discount = discountOf(settlement);
    const usage = settlement.usage;
    const factor = multiplier * (1 - discount);
    const pricing = settlement.model.spec.pricing;
    const media = mediaUnitsOf(settlement);
    const cache = { read: usage.cacheReadTokens, write: usage.cacheWriteTokens, write1h: usage.cacheWrite1hTokens };
    const searches = reportedCount(usage.webSearchRequests);
    const images = usage.imageGeneration;
    const imageTool = images ? priceImageTool(this.o.registry, settlement.model, images, factor) : 0;
    const priced = roundCredits(priceTokens(pricing, usage.inputTokens, usage.outputTokens, factor, cache) + priceMedia(pricing, media, factor) + priceWebSearches(pricing, searches, factor) + imageTool);
    // Fails closed: a cost that is not a finite count (a pricing bug, an upstream's odd usage) is
    // charged as the hold, never written as NaN into the balance and the ledger.
    const cost = priced >= 0 && priced < Infinity ? priced : this.unpricedCost(request, priced, held);
    const ts = this.o.clock.now();
    const requestId = request.requestId ?? settlement.responseId ?? '';
    const entry: PricedEntry = {
      ts,
      request_id: requestId,
      account_id: account.id,
      key_id: key.id,
      model: settlement.model.id,
      provider: settlement.model.provider.id,
      endpoint: request.route,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      reasoning_tokens: usage.reasoningTokens ?? 0,
      cached_tokens: usage.cacheReadTokens ?? 0,
      cost_credits: cost,
      charged_credits: cost,
      estimated: settlement.estimated,
      aborted: settlement.aborted,
    };
    if (discount > 0) entry.discount = discount;
    if (multiplier !== 1) entry.price_multiplier = multiplier;
    if (media) entry.media = media;
    // The image tool's images are counted with any the route made.
    if (images?.images) entry.media = { ...entry.media, images: (entry.media?.images ?? 0) + images.images };
    if (searches) entry.web_search_requests = searches;
    answerFields(entry, settlement, requestId, ts);
    return entry;
  }

  /** A request whose hold came out as no finite count of credits: a 500, logged, nothing held. */
  private unpriceable(request: AdmissionRequest, what: string, credits: number): GatewayError {
    this.o.log.error('credits: a request could not be priced; refused', { request_id: request.requestId, account: request.auth.account.id, model: request.model, [what]: String(credits) });
    return new GatewayError('internal_error', `The gateway could not price this request for '${request.model}' (its ${what} came out as ${String(credits)}); nothing was charged.`);
  }

  /** A settlement whose cost came out as no finite count: charged as its hold, logged. */
  private unpricedCost(request: AdmissionRequest, cost: number, held: number): number {
    this.o.log.error('credits: a settlement could not be priced; the hold is charged', { request_id: request.requestId, account: request.auth.account.id, model: request.model, cost: String(cost), held });
    return held;
  }

  /** An upstream billed more than the hold (a provider miscounting, an image beyond its allowance): charged as far as the balance goes, and said. */
  private beyondHold(request: AdmissionRequest, held: number, cost: number, charged: number): void {
    this.o.log.warn('credits: the upstream billed more than the hold; the difference is charged', { request_id: request.requestId, account: request.auth.account.id, model: request.model, held, cost, charged });
  }

  liveInFlight(): number {
    return this.live;
  }

  billedRequests(prefix: string): Promise<Set<string>> {
    return this.o.credits.billedRequests(prefix);
  }

  async close(): Promise<void> {
    await this.o.storage.close();
    await this.o.limiter.close();
    await this.o.credits.close();
  }
}
