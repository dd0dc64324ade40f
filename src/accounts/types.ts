/**
 * The request-guard port: what the HTTP layer asks of rate limits, quotas and billing, and
 * what the account guards implement. Types only.
 */
import type { ImageToolRequest } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { SettledCharge } from '../observability/index.ts';
import type { Settlement } from '../pipeline/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/index.ts';
import type { StorageState } from '../store/index.ts';
import type { buildActivityView, buildCreditsView, buildGenerationView, buildKeyView, UsageIndex } from '../usage/index.ts';
import type { LedgerPage } from '../store/index.ts';
import type { MaybePromise } from '../util/index.ts';
import type { GatewayError } from '../errors/index.ts';

/** Who is calling: the account and the API key used. */
export interface AuthContext {
  account: AccountRecord;
  key: ApiKeyRecord;
}

/** What the rate limits and the concurrency slot look at: known before a request's body is read. */
export interface LimitRequest {
  auth: AuthContext;
  method: string;
  /** The route pattern, e.g. `/v1/chat/completions`. */
  route: string;
  /**
   * The URL's path, when the request came in over HTTP. Admitted on another route than its own (a format's
   * media face: Gemini's `…:embedContent` is admitted as `/v1/embeddings`), the endpoint scope lets a key
   * scoped to the face's format through too, and its 403 names this path.
   */
  calledPath?: string;
  clientAddress: string;
}

/**
 * A request's rate-limit hit and concurrency slot, taken before its body is read (so a body
 * costs nothing to refuse once the key is over its limits); handed to `admit` as
 * `AdmissionRequest.limits`, which then does not count the request again.
 */
export interface PassedLimits {
  /** Gives the slot back when the request ends before its admission (a refused body); no-op once admitted. */
  release(): void;
}

/** What a route knows about the request when it asks the request guards for admission. */
export interface AdmissionRequest extends LimitRequest {
  /** The limits this request already passed (RequestGuards.passLimits); checked here when absent. */
  limits?: PassedLimits;
  /** Catalog model id, when the route names one. */
  model?: string;
  /** Input tokens at most (an upper bound: `boundInputTokens`), for the quota and the credit hold. */
  estimatedInputTokens?: number;
  /** Requested output token cap, for the credit hold (absent: the model's maximum output); `thinkingOnTop.tokens` are in it. */
  maxOutputTokens?: number;
  /**
   * The thinking budget held on top of the client's cap (RequestFacts.thinkingOnTop) and the
   * request's format: left out of the hold when no model that may serve it is sent it in a format
   * whose cap does not bound reasoning (mayThinkPastCap: OpenAI's count reasoning inside the cap).
   */
  thinkingOnTop?: { tokens: number; format: WireFormat };
  /** Multiplies the price (0.5 for batch requests); default 1. */
  priceMultiplier?: number;
  /**
   * Media units the request will use at most (images asked for, characters to speak), priced
   * into the reservation; default one image on image models.
   */
  media?: { images?: number; speechCharacters?: number; audioSeconds?: number; mediaSeconds?: number; jobs?: number; providerUsd?: number };
  /**
   * The request carries a hosted web search: the hold covers `maxUses` searches (Anthropic
   * `max_uses`), else `billing.reserveWebSearches`, at the model's `webSearch` price.
   */
  webSearch?: { maxUses?: number };
  /** The request declares OpenAI's hosted image tool: the hold covers the images it may make (docs/billing.md). */
  imageTool?: ImageToolRequest;
  /**
   * The catalog models that may serve the request, when the route has already resolved them
   * (media); otherwise the guards resolve `model` and its configured fallbacks. A key scoped
   * to some models must cover all of them.
   */
  servedBy?: readonly CatalogModel[];
  /** The request's own fallback models (OpenRouter's `models`): they may serve it too, so the key's scope and the hold cover them. */
  fallbacks?: readonly string[];
  /** The request id, recorded in the usage ledger. */
  requestId?: string;
  /**
   * Settled where nobody waits for an answer (a media job): the settlement resolves once the
   * charge is where `billedRequests` reads it (the shared database), so an instance that takes
   * the job over after this one dies finds it charged. Batch lines always are.
   */
  untilBilled?: boolean;
  /**
   * The gateway's own admission for a request a client made earlier (a media job's hold taken
   * again, or its charge, after a restart): that request met the rate limit and the slot then,
   * so this one takes neither (a full window would leave the job uncharged).
   */
  resumed?: boolean;
}

/** A granted admission: headers to send and a settle step once the usage is known. */
export interface Admission {
  headers: Record<string, string>;
  /**
   * Charges the final usage (or releases the reservation when nothing was used). Its usage
   * ledger line is written before this returns, or, under load (group commit), with its group
   * at most `billing.ledgerGroupMs` later: then `recording` is set until it is. Resolves with
   * what was charged, once the line is written.
   */
  settle(settlement: Settlement | null): Promise<SettledCharge | void>;
  /**
   * Set from `settle` until the settlement's ledger line is written (group commit): a route
   * sends the answer's last bytes only after it resolves (never rejects).
   */
  readonly recording?: Promise<unknown>;
}

/** A request made without credentials (login), limited per client address. */
export interface AnonymousRequest {
  method: string;
  /** The route pattern, e.g. `/api/auth/login`. */
  route: string;
  clientAddress: string;
}

/** The UTC days (and optionally one key) an activity view covers. */
export interface ActivityRange {
  from: string;
  to: string;
  keyId?: string;
}

/** What GET /v1/credits, /v1/key and /v1/activity answer (OpenRouter-style, wire-formats §7). */
export interface UsageViews {
  credits(account: AccountRecord): ReturnType<typeof buildCreditsView> | Promise<ReturnType<typeof buildCreditsView>>;
  key(auth: AuthContext): ReturnType<typeof buildKeyView> | Promise<ReturnType<typeof buildKeyView>>;
  activity(accountId: string, range: ActivityRange): ReturnType<typeof buildActivityView> | Promise<ReturnType<typeof buildActivityView>>;
  /** One account's settled requests, newest first, a page at a time (the dashboard's Usage page). */
  requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage>;
  /** One settled request of the key, by its request id or its answer's own id (OpenRouter's generation stats); undefined when the key has none by that id. */
  generation(auth: AuthContext, id: string): Promise<ReturnType<typeof buildGenerationView> | undefined>;
}

/** Rate limits, quotas and billing on the request path, as the routes see them. */
export interface RequestGuards {
  /**
   * Admits a request (limits, scopes, credits): at once when every guard can answer at once (an
   * in-process limiter, a credit engine that holds without a round trip), else a promise. A
   * refusal is a rejected promise, never a throw.
   */
  admit(request: AdmissionRequest): MaybePromise<Admission>;
  /**
   * The rate limits and the concurrency slot alone, before the body is read: at once with an
   * in-process limiter, else a promise. Throws (or rejects with) 429 as `admit` would.
   */
  passLimits?(request: LimitRequest): MaybePromise<PassedLimits>;
  /** Counts an unauthenticated request against its per-address limit; returns the rate-limit headers or throws 429. */
  admitAnonymous(request: AnonymousRequest): Promise<Record<string, string>>;
  /** The 429 for a client address locked out for failed credentials (`limits.failedCredentials`), from memory; undefined when it is not. */
  credentialLockout(clientAddress: string): GatewayError | undefined;
  /** Counts a failed credential of a client address: the 429 when it is one too many (the address is locked out from now), else undefined. */
  credentialFailed(clientAddress: string): MaybePromise<GatewayError | undefined>;
  /**
   * Charges work that was admitted and done but whose admission this process no longer holds (a
   * media job resumed after a restart, when admitting it again for its charge is refused: its
   * key's scope narrowed, its balance gone meanwhile). No limits, no hold, no refusal: the ledger
   * gets the whole cost and the balance what `billing.enforce` lets it take, as for a charge
   * beyond its hold. Rejects only when the charge cannot be recorded.
   */
  chargeDone?(request: AdmissionRequest, settlement: Settlement): Promise<SettledCharge | void>;
  /** The usage views; absent when the server keeps no usage accounts. */
  readonly usageViews?: UsageViews;
  /**
   * The request ids starting with `prefix` that the usage ledger holds (billed), read without
   * holding the event loop. A resumed batch asks it for its own lines (`<batch id>:`), so a
   * line billed just before a crash is never billed again.
   */
  billedRequests?(prefix: string): Promise<Set<string>>;
  /** A snapshot of the usage index (the admin and account procedures' usage views); absent when no usage is kept. */
  usageSnapshot?(): Promise<UsageIndex>;
  /** Live requests (naming a model, not batch lines) admitted and not yet settled in this process: batch lines give way to them. */
  liveInFlight?(): number;
  /** The shared rate-limit store's state (Redis); absent when limits are kept in this process. /health reports it. */
  limitsStore?(): LimitsStoreState | undefined;
  /** Whether the data dir can be written (billed requests are refused while it cannot); /health reports it. */
  readonly storage?: { state(): StorageState; failed(error: unknown, what: string): void };
}

/** A rate-limit store in another process, as /health reports it. */
export interface LimitsStoreState {
  store: 'redis';
  /** False while it cannot be reached: with `on_error: 'closed'` every limited request is refused meanwhile. */
  reachable: boolean;
  on_error: 'open' | 'closed';
}
