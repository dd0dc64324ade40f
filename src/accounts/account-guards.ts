import { discountOf, isPriced, mediaUnitsOf, priceMedia, priceTokens, roundCredits, type BillingConfig } from '../billing/index.ts';
import { nextMonthStart, nextResetAt, type CreditBook, type Reservation, type SharedCredits, type SharedHold, type SpendCeiling } from '../credits/index.ts';
import { GatewayError } from '../errors/index.ts';
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
import type { ProviderRegistry } from '../providers/index.ts';
import type { RoutingConfig } from '../config/index.ts';
import type { SettledCharge } from '../observability/index.ts';
import type { Store } from '../store/index.ts';
import { recordNotWritten, scanLedger, type LedgerEntry, type NewLedgerEntry, type StorageHealth, type UsageLedger } from '../store/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { newId } from '../util/index.ts';
import { UsageIndex } from '../usage/index.ts';
import { modelTerms } from './check-model-access.ts';
import { checkEndpointScope, checkModelScope, modelsThatMayServe } from './key-scope.ts';
import { currentKey } from './current-key.ts';
import type { Admission, AdmissionRequest, AnonymousRequest, LimitRequest, PassedLimits, RequestGuards, UsageViews } from './types.ts';
import { AccountUsageViews, SharedUsageViews } from './usage-views.ts';

export interface AccountGuardsOptions {
  limits: RateLimitConfig;
  billing: BillingConfig;
  limiter: RateLimitStore;
  store: Store;
  registry: ProviderRegistry;
  /** The JSONL usage ledger of the data dir (file store); absent when credits are shared. */
  ledger?: UsageLedger;
  usage: UsageIndex;
  /** Credits shared across instances (a database store): holds, ledger and aggregates live there. */
  shared?: SharedCredits;
  credits: CreditBook;
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
  if (!(error instanceof GatewayError)) return error;
  return new GatewayError(error.code, error.message, {
    status: error.status,
    details: error.details,
    retryAfter: error.retryAfter,
    cause: error.cause,
    headers: { ...headers, ...error.headers },
  });
}

/** What a settlement did: the charge, and the write its ledger line waits for (group commit). */
interface Settled {
  charge?: SettledCharge;
  /** Resolves once the ledger line is in the kernel and the balance is charged; rejects (503, not charged) when it could not be written. */
  recorded?: Promise<void>;
}

/** What the rate-limit check found. */
interface CheckedLimits {
  limit: ResolvedLimit | null;
  result: RateLimitResult | null;
  lease: ConcurrencyLease | null;
}

/** The route batch lines are admitted on. */
const BATCH_ROUTE = '/v1/batches';

/** A request a client waits for: it names a model and is not a batch line. */
function isLive(request: AdmissionRequest): boolean {
  return request.model !== undefined && request.route !== BATCH_ROUTE;
}

/** Gives a concurrency slot back, synchronously when the store can; a lost release only holds the slot until its expiry. */
function releaseLease(lease: ConcurrencyLease, log?: Logger): void {
  if (lease.releaseNow) {
    lease.releaseNow();
    return;
  }
  void lease.release().catch((error: unknown) => log?.warn('releasing a concurrency slot failed', { error: String(error) }));
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

/** The limits a request passed before its body was read, taken over by its admission. */
function passedOf(request: AdmissionRequest): CheckedLimits | undefined {
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
    private readonly reservation: Reservation | SharedHold | undefined,
  ) {}

  settle(settlement: Settlement | null): Promise<SettledCharge | void> {
    if (this.settled) return Promise.resolve();
    this.settled = true;
    try {
      const { charge, recorded } = this.guards.settleAdmission(this.request, this.lease, this.reservation, settlement);
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
 * exemptions), per-key concurrency slots, model tiers, the monthly token quota and credit
 * reservations settled on actual usage into the ledger.
 */
export class AccountGuards implements RequestGuards {
  readonly usage: UsageIndex;
  readonly credits: CreditBook;
  readonly limiter: RateLimitStore;
  readonly limits: RateLimitConfig;
  readonly billing: BillingConfig;
  readonly usageViews: UsageViews;
  readonly storage: StorageHealth;
  private readonly shared: SharedCredits | undefined;
  /** Admissions granted and not settled yet: the ledger's group commit waits only while others may join. */
  private inFlight = 0;
  /** Admitted model requests in flight that are not batch lines (batch lines run below them). */
  private live = 0;

  constructor(private readonly o: AccountGuardsOptions) {
    this.usage = o.usage;
    this.credits = o.credits;
    this.limiter = o.limiter;
    this.limits = o.limits;
    this.billing = o.billing;
    this.shared = o.shared;
    this.storage = o.storage;
    this.usageViews = o.shared ? new SharedUsageViews(o.store, o.shared, o.limits, o.clock) : new AccountUsageViews(o.store, o.usage, o.credits, o.limits, o.clock, o.ledger?.file);
  }

  /** The usage aggregates (admin views): the in-memory index, or read from the shared ledger. */
  async usageSnapshot(): Promise<UsageIndex> {
    return this.shared ? (await this.shared.usage()).usage : this.usage;
  }


  admit(request: AdmissionRequest): Promise<Admission> {
    const limiter = this.o.limiter;
    // No answer without its record: while the data dir cannot be written, billed requests are refused before any upstream call.
    if (request.model) {
      try {
        this.o.storage.check();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.shared) return this.admitShared(request, this.shared);
    if (!limiter.hitNow || !limiter.acquireNow) return this.admitAsync(request);
    // An in-process limiter answers at once: the whole admission is synchronous, one promise.
    try {
      return Promise.resolve(this.admitInProcess(request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** With an in-process limiter and this process's credits (the file store), the admission without a promise. */
  admitNow(request: AdmissionRequest): Admission | undefined {
    const limiter = this.o.limiter;
    if (this.shared || !limiter.hitNow || !limiter.acquireNow) return undefined;
    if (request.model) this.o.storage.check();
    return this.admitInProcess(request);
  }

  passLimits(request: LimitRequest): PassedLimits | Promise<PassedLimits> {
    const limiter = this.o.limiter;
    const subject = this.subjectOf(request);
    if (limiter.hitNow && limiter.acquireNow) return new PassedAccountLimits(this.checkLimitsNow(subject, request.auth.key.id, request.auth.account));
    return this.checkLimits(subject, request.auth.key.id, request.auth.account).then((checked) => new PassedAccountLimits(checked));
  }

  private admitInProcess(request: AdmissionRequest): Admission {
    const passed = passedOf(request);
    return this.grant(request, passed ?? this.checkLimitsNow(this.subjectOf(request), request.auth.key.id, request.auth.account));
  }

  private async admitAsync(request: AdmissionRequest): Promise<Admission> {
    const passed = passedOf(request);
    return this.grant(request, passed ?? (await this.checkLimits(this.subjectOf(request), request.auth.key.id, request.auth.account)));
  }

  /**
   * Shared credits: the limits, then the hold — from this instance's leased slice without a
   * database call (the whole admission is then synchronous with an in-process limiter), or one
   * database call (see SharedCredits.hold).
   */
  private admitShared(request: AdmissionRequest, shared: SharedCredits): Promise<Admission> {
    const limiter = this.o.limiter;
    if (!limiter.hitNow || !limiter.acquireNow) return this.admitSharedAsync(request, shared);
    let checked: CheckedLimits;
    try {
      checked = passedOf(request) ?? this.checkLimitsNow(this.subjectOf(request), request.auth.key.id, request.auth.account);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.holdShared(request, shared, checked);
  }

  private async admitSharedAsync(request: AdmissionRequest, shared: SharedCredits): Promise<Admission> {
    const checked = passedOf(request) ?? (await this.checkLimits(this.subjectOf(request), request.auth.key.id, request.auth.account));
    return this.holdShared(request, shared, checked);
  }

  private holdShared(request: AdmissionRequest, shared: SharedCredits, checked: CheckedLimits): Promise<Admission> {
    const { limit, result, lease } = checked;
    const account = request.auth.account;
    const headers = buildRateLimitHeaders({ result, scope: limit?.scope, tier: account.tier, concurrencyRemaining: lease?.remaining });
    const refused = (error: unknown) => {
      if (lease) releaseLease(lease);
      throw withHeaders(error, headers);
    };
    try {
      const priced = this.price(request, account);
      if (!priced) return Promise.resolve(this.sharedAdmission(request, headers, lease, undefined));
      const input = { requestId: request.requestId, account: priced.account, key: priced.key, credits: priced.credits, tokens: priced.inputTokens, needsBalance: priced.needsBalance };
      const now = shared.holdNow(input);
      if (now) return Promise.resolve(this.sharedAdmission(request, headers, lease, now));
      return shared.hold(input).then((hold) => this.sharedAdmission(request, headers, lease, hold), refused);
    } catch (error) {
      if (lease) releaseLease(lease);
      return Promise.reject(withHeaders(error, headers));
    }
  }

  private sharedAdmission(request: AdmissionRequest, headers: Record<string, string>, lease: ConcurrencyLease | null, hold: SharedHold | undefined): Admission {
    this.inFlight += 1;
    if (isLive(request)) this.live += 1;
    return new AccountAdmission(this, request, headers, lease, hold);
  }

  private subjectOf(request: LimitRequest): LimitSubject {
    const { account, key } = request.auth;
    // Also here, not only at authentication: callers that admit without an HTTP request (batch lines) meet the scope too.
    checkEndpointScope(key, request.route);
    return {
      method: request.method,
      path: request.route,
      ip: request.clientAddress,
      apiKey: { id: key.id, rpm: key.rpm },
      account: { id: account.id, tier: account.tier, rpm: account.rpm },
    };
  }

  /** The limits passed: reserve credits and hand out the admission (the slot goes back if the reservation fails). */
  private grant(request: AdmissionRequest, checked: CheckedLimits): Admission {
    const { limit, result, lease } = checked;
    const account = request.auth.account;
    const headers = buildRateLimitHeaders({ result, scope: limit?.scope, tier: account.tier, concurrencyRemaining: lease?.remaining });
    let reservation: Reservation | undefined;
    try {
      reservation = this.reserve(request, account);
    } catch (error) {
      if (lease) releaseLease(lease);
      throw withHeaders(error, headers);
    }
    this.inFlight += 1;
    if (isLive(request)) this.live += 1;
    return new AccountAdmission(this, request, headers, lease, reservation);
  }

  /** Settles an admission once: gives its slot back, then charges (or releases) its reservation. */
  settleAdmission(request: AdmissionRequest, lease: ConcurrencyLease | null, reservation: Reservation | SharedHold | undefined, settlement: Settlement | null): Settled {
    this.inFlight -= 1;
    if (isLive(request)) this.live -= 1;
    if (lease) releaseLease(lease, this.o.log);
    if (this.shared) return this.settleShared(this.shared, request, reservation as SharedHold | undefined, settlement);
    return this.settle(request, reservation as Reservation | undefined, settlement);
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
   * The rate-limit hit and the concurrency slot, asked of the store at once (one round trip
   * of latency on Redis instead of two). A slot taken by a throttled request is given back.
   */
  private async checkLimits(subject: LimitSubject, keyId: string, account: AccountRecord): Promise<CheckedLimits> {
    const limit = resolveLimit(subject, this.limits);
    const cap = resolveConcurrency(subject, this.limits);
    const [hit, slot] = await Promise.allSettled([
      limit ? this.o.limiter.hit(limit.key, limit.limit, limit.windowMs, this.o.limiterNow?.()) : null,
      cap ? this.o.limiter.acquire(`k:${keyId}:gen`, cap.max, cap.ttlMs) : null,
    ]);
    const lease = slot.status === 'fulfilled' ? slot.value : null;
    if (hit.status === 'rejected') {
      if (lease) releaseLease(lease);
      throw hit.reason;
    }
    if (slot.status === 'rejected') throw slot.reason;
    return this.judgeLimits(limit, cap, hit.value, lease, account);
  }

  /** checkLimits of an in-process limiter, synchronously. */
  private checkLimitsNow(subject: LimitSubject, keyId: string, account: AccountRecord): CheckedLimits {
    const limiter = this.o.limiter;
    const limit = resolveLimit(subject, this.limits);
    const cap = resolveConcurrency(subject, this.limits);
    const result = limit ? limiter.hitNow!(limit.key, limit.limit, limit.windowMs, this.o.limiterNow?.()) : null;
    const lease = cap ? limiter.acquireNow!(`k:${keyId}:gen`, cap.max, cap.ttlMs) : null;
    return this.judgeLimits(limit, cap, result, lease, account);
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
      throw rateLimitExceededError(result, limit, account.tier);
    }
    if (cap && !lease) {
      const error = concurrencyExceededError(cap.max, account.tier);
      throw withHeaders(error, buildRateLimitHeaders({ result, scope: limit?.scope, tier: account.tier, concurrencyRemaining: 0 }));
    }
    return { limit, result, lease };
  }

  /** The key's stored record now (an operator may have changed its scope or limit since authentication). */
  private currentKey(key: ApiKeyRecord): ApiKeyRecord {
    return currentKey(this.o.store, key);
  }

  /**
   * Model scope, tier, quota and credit checks, then the reservation against the key's spend
   * limit, the account's spend cap and the balance; synchronous from start to reservation, so
   * nothing interleaves.
   */
  private reserve(request: AdmissionRequest, account: AccountRecord): Reservation | undefined {
    const priced = this.price(request, account);
    if (!priced) return undefined;
    const { account: current, key, credits, inputTokens } = priced;
    this.checkQuota(current, inputTokens);
    return this.credits.reserve(current.id, credits, inputTokens, this.billing.enforce, {
      needsBalance: priced.needsBalance,
      keyId: key.id,
      ceilings: this.ceilingsFor(key, current, this.o.clock.now()),
    });
  }

  /** Model scope and the unpriced policy, then what the request may cost at most (credits) and its input tokens; undefined without a model. */
  private price(request: AdmissionRequest, account: AccountRecord): { account: AccountRecord; key: ApiKeyRecord; credits: number; inputTokens: number; needsBalance: boolean } | undefined {
    if (!request.model) return undefined;
    const current = this.o.store.cache.account(account.id) ?? account;
    const key = this.currentKey(request.auth.key);
    if (key.models) checkModelScope(key, request.model, request.servedBy ?? modelsThatMayServe(this.o.registry, this.o.routing, request.model));
    const terms = modelTerms(this.o.registry, request.model, current.tier);
    if (terms.unpriced && this.billing.unpriced === 'reject') throw unpricedError(request.model, terms.unpriced);
    const inputTokens = Math.max(0, Math.ceil(request.estimatedInputTokens ?? 0));
    // The hold rule (docs/billing.md): the worst case — what the client caps the output at, else
    // the model's maximum output (`billing.reserveOutputTokens` for a model that states none).
    const outputTokens = Math.min(request.maxOutputTokens ?? Infinity, terms.maxOutputTokens ?? request.maxOutputTokens ?? this.billing.reserveOutputTokens);
    const factor = request.priceMultiplier ?? 1;
    // Media units the route expects (images asked for, characters to speak); one image when it does not say.
    const credits = roundCredits(priceTokens(terms.pricing, inputTokens, outputTokens, factor) + priceMedia(terms.pricing, request.media ?? { images: 1 }, factor));
    return { account: current, key, credits, inputTokens, needsBalance: isPriced(terms.pricing) };
  }

  /** The key's spend limit and the account's monthly spend cap, with what each period has spent so far. */
  private ceilingsFor(key: ApiKeyRecord, account: AccountRecord, now: number): SpendCeiling[] {
    const out: SpendCeiling[] = [];
    if (key.limit !== null && key.limit !== undefined) {
      const reset = key.limitReset ?? null;
      out.push({ scope: 'key', id: key.id, limit: key.limit, spent: this.usage.keyCreditsIn(key.id, reset, now), reset, resetsAt: nextResetAt(reset, now) });
    }
    if (account.spendCap !== null && account.spendCap !== undefined) {
      out.push({ scope: 'account', id: account.id, limit: account.spendCap, spent: this.usage.accountCreditsInMonth(account.id, now), reset: 'monthly', resetsAt: nextMonthStart(now) });
    }
    return out;
  }

  private checkQuota(account: AccountRecord, inputTokens: number): void {
    const quota = account.monthlyTokenQuota;
    if (quota === null || quota === undefined) return;
    const now = this.o.clock.now();
    const used = this.usage.tokensInMonth(account.id, now);
    const inFlight = this.credits.tokensInFlight(account.id);
    if (used + inFlight + inputTokens > quota || used >= quota) {
      throw new GatewayError('quota_exceeded', `The monthly token quota of ${quota} tokens is used up (${used} used this month); it resets at the start of next month (UTC).`, {
        details: { quota, used, in_flight: inFlight, requested: inputTokens, resets_at: nextMonthStart(now) },
      });
    }
  }

  /**
   * Charges the actual usage (after discount and multiplier): appends the ledger line, and once
   * it is in the kernel (at once, or with its group) adds it to the usage index, debits the
   * balance and gives back the reservation, in that order, so a store snapshot never claims a
   * line the ledger lacks and the credits stay reserved until then.
   */
  private settle(request: AdmissionRequest, reservation: Reservation | undefined, settlement: Settlement | null): Settled {
    const { account, key } = request.auth;
    if (!settlement) {
      if (reservation) this.credits.release(reservation);
      return {};
    }
    const { entry: line, cost } = this.ledgerEntry(request, settlement, request.requestId ?? settlement.responseId ?? '');
    const enforce = this.billing.enforce;
    const ceilings = this.ceilingsFor(this.currentKey(key), this.o.store.cache.account(account.id) ?? account, this.o.clock.now());
    const charged = this.credits.chargeable(reservation ?? { accountId: account.id, keyId: key.id, credits: 0, tokens: 0, open: false }, cost, enforce, ceilings);
    const charge: SettledCharge = { cost, charged, held: reservation?.credits ?? 0 };
    if (reservation && cost > reservation.credits) this.beyondHold(request, reservation.credits, cost, charged);
    line.charged_credits = charged;
    // Until the line is written and the balance debited, the charge holds what it takes.
    reservation = this.credits.holdCharge(reservation, account.id, key.id, charged);
    const ledger = this.o.ledger!;
    let appended;
    try {
      // Alone in flight: nobody can join a group, so the line is written at once.
      appended = ledger.appendToGroup(line, this.inFlight === 0);
    } catch (error) {
      return { charge, recorded: Promise.reject(this.notRecorded(error, request, reservation)) };
    }
    const { entry, written } = appended;
    if (!written) {
      this.book(account.id, charged, entry, reservation);
      return { charge };
    }
    const recorded = written.then(
      () => this.book(account.id, charged, entry, reservation),
      (error: unknown) => {
        throw this.notRecorded(error, request, reservation);
      },
    );
    return { charge, recorded };
  }

  /** The ledger line of a settlement (`charged_credits` the whole cost until the caller decides) and the price of its usage. */
  private ledgerEntry(request: AdmissionRequest, settlement: Settlement, requestId: string): { entry: NewLedgerEntry; cost: number } {
    const { account, key } = request.auth;
    const multiplier = request.priceMultiplier ?? 1;
    const discount = discountOf(settlement);
    const usage = settlement.usage;
    const factor = multiplier * (1 - discount);
    const pricing = settlement.model.spec.pricing;
    const media = mediaUnitsOf(settlement);
    const cache = { read: usage.cacheReadTokens, write: usage.cacheWriteTokens };
    const cost = roundCredits(priceTokens(pricing, usage.inputTokens, usage.outputTokens, factor, cache) + priceMedia(pricing, media, factor));
    const entry: NewLedgerEntry = {
      ts: this.o.clock.now(),
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
    return { entry, cost };
  }

  /**
   * Shared credits: the ledger row goes to the instance's settlement outbox (the answer's last
   * bytes wait for its write, as the file store's ledger line); the outbox sends it to the
   * database, where the row, the charge and the hold's end are one transaction, exactly once
   * per request id. A batch line waits for that commit (a resumed batch reads the ledger).
   */
  private settleShared(shared: SharedCredits, request: AdmissionRequest, hold: SharedHold | undefined, settlement: Settlement | null): Settled {
    if (!settlement) {
      if (hold) shared.release(hold);
      return {};
    }
    const { entry, cost } = this.ledgerEntry(request, settlement, hold?.requestId ?? (request.requestId || newId('req', 16)));
    const charge: SettledCharge = { cost, charged: cost, held: hold?.credits ?? 0 };
    if (hold && hold.credits > 0 && cost > hold.credits) this.beyondHold(request, hold.credits, cost, cost);
    const recorded = shared.settle(hold, entry, charge, { now: this.inFlight === 0, untilRecorded: request.route === BATCH_ROUTE });
    return recorded ? { charge, recorded } : { charge };
  }

  /** After the ledger line is written (or failed): the usage index, the balance, the reservation. */
  private book(accountId: string, charged: number, entry: LedgerEntry | undefined, reservation: Reservation | undefined): void {
    if (entry) this.usage.add(entry);
    if (charged > 0 || entry) this.credits.debit(accountId, charged, entry?.seq);
    if (reservation) this.credits.release(reservation);
  }

  /** An upstream billed more than the hold (a provider miscounting, an image beyond its allowance): charged as far as the balance goes, and said. */
  private beyondHold(request: AdmissionRequest, held: number, cost: number, charged: number): void {
    this.o.log.warn('credits: the upstream billed more than the hold; the difference is charged', { request_id: request.requestId, account: request.auth.account.id, model: request.model, held, cost, charged });
  }

  /**
   * The ledger line could not be written (a full disk): no charge without its line — the
   * reservation goes back, the balance is untouched, the answer fails with 503 instead of being
   * sent, and billed requests are refused until the data dir can be written again.
   */
  private notRecorded(error: unknown, request: AdmissionRequest, reservation: Reservation): GatewayError {
    this.credits.release(reservation);
    this.o.storage.failed(error, 'the usage ledger');
    this.o.log.error('usage ledger append failed; the request is not charged and its answer fails', { error: String(error), account: request.auth.account.id, request_id: request.requestId });
    return recordNotWritten(error, 'usage ledger line');
  }

  liveInFlight(): number {
    return this.live;
  }

  async billedRequests(prefix: string): Promise<Set<string>> {
    if (this.shared) return this.shared.billedRequests(prefix);
    const found = new Set<string>();
    await scanLedger(this.o.ledger!.file, (entry) => {
      if (typeof entry.request_id === 'string' && entry.request_id.startsWith(prefix)) found.add(entry.request_id);
    });
    return found;
  }

  async close(): Promise<void> {
    this.o.storage.close();
    await this.o.limiter.close();
    await this.o.ledger?.close();
    await this.shared?.close();
  }
}
