import type { AuthContext, PassedLimits, RequestGuards } from '../accounts/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { RequestIds } from '../errors/index.ts';
import type { RouteTarget } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { RequestRecord, SettledCharge } from '../observability/index.ts';
import type { RelayedStream } from '../pipeline/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { Router } from '../routing/index.ts';
import type { Store } from '../store/index.ts';
import type { AbortWatch } from '../util/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';

/** What an exchange needs, passed in by whoever runs one (the composition root builds it once). */
export interface ExchangeDeps {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  /** The one router of the running gateway: breakers and latency live as long as it does. */
  router: Router;
  guards: RequestGuards;
  clock: Clock;
  log: Logger;
  /**
   * The process's budget of large bodies being built at once (`server.bodyLimits.inFlight`): a
   * prompt's uploaded files going inline hold it as a parsed body of that size does. Absent (batch
   * lines, `batches.concurrency` at a time): not held.
   */
  bodyBudget?: BytesBudget;
}

/** Bytes taken while a large body is built (take throws when they do not fit) and given back after. */
export interface BytesBudget {
  take(bytes: number): void;
  give(bytes: number): void;
}

/**
 * One chat-like request, free of any transport: an HTTP route, a batch line or a native batch
 * line builds it from what it has and hands it to runExchange.
 */
export interface ExchangeCall {
  format: WireFormat;
  /** What a format that carries the model in its path read from the URL. */
  target?: RouteTarget;
  body: Record<string, unknown>;
  /** The body text as received (forwarded as is on a passthrough); absent: the body's JSON. */
  raw?: string;
  auth: AuthContext;
  /** The route pattern admission and limits see (`/v1/batches` for batch lines: no RPM). */
  route: string;
  clientAddress: string;
  ids: RequestIds;
  /** Fires when whoever waits for the answer goes away; absent: nobody can. */
  client?: AbortWatch;
  /** Client headers worth forwarding upstream (anthropic-beta, …). */
  forwardHeaders?: Record<string, string>;
  /** `X-Gateway-Events`: routing events in streams (docs/routing.md). */
  gatewayEvents?: string;
  /** The client's `X-Session-Id` header, a sticky-routing session key (routing.sticky). */
  sessionId?: string;
  /** The request's observability record (metrics, request log, traces), if any. */
  record?: RequestRecord;
  /**
   * The rate limits and concurrency slot this call already passed (taken before its body was
   * read); admission takes them over. Whoever took them gives them back if no admission did.
   */
  limits?: PassedLimits;
  /** Multiplies the price (batches.priceMultiplier for batch lines). */
  priceMultiplier?: number;
  /** False for a batch line whose charge is already in the ledger: run again, charged nothing. */
  billed?: boolean;
  /** False: no `previous_response_id` rehydration, no stored copy (batch lines). Default true. */
  keepResponses?: boolean;
  /**
   * A Responses `POST /v1/responses/compact` body: passed through to an upstream that has the
   * route (its provider's `compactResponses`), else answered by the model's summary (the route
   * shapes it). Never stored.
   */
  compact?: boolean;
  /** Told the admission's headers (rate limits, credits) as soon as it is granted, so an error answer carries them too. */
  onHeaders?(headers: Record<string, string>): void;
}

/** What an exchange answered: a whole JSON body, or a stream whose end waits for its durable records. */
export interface ExchangeAnswer {
  status: number;
  headers: Record<string, string>;
  /** Exactly one of json / stream is set. */
  json?: string;
  stream?: RelayedStream;
  /** Resolves once the exchange is settled and charged, and its record knows it, with the charge; never rejects. */
  settled: Promise<SettledCharge | void>;
  /** The body sent on when the exchange rebuilt it (a compact call's stored chain): what the answer is reshaped from. */
  sentBody?: Record<string, unknown>;
}
