import type { GatewayConfig } from '../config/index.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { Store } from '../store/repositories.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import type { Settlement } from '../pipeline/types.ts';
import type { MediaRuntime } from '../media/media-runtime.ts';
import type { ResponsesStore } from '../responses-store/responses-store.ts';

/** Who is calling: the account and the API key used. */
export interface AuthContext {
  account: AccountRecord;
  key: ApiKeyRecord;
}

/** What a route knows about the request when it asks the request guards for admission. */
export interface AdmissionRequest {
  auth: AuthContext;
  method: string;
  /** The route pattern, e.g. `/v1/chat/completions`. */
  route: string;
  clientAddress: string;
  /** Catalog model id, when the route names one. */
  model?: string;
  /** Estimated input tokens, for quota and credit reservation. */
  estimatedInputTokens?: number;
  /** Requested output token cap, for credit reservation. */
  maxOutputTokens?: number;
  /** Multiplies the price (0.5 for batch requests); default 1. */
  priceMultiplier?: number;
  /** The request id, recorded in the usage ledger. */
  requestId?: string;
}

/** A granted admission: headers to send and a settle step once the usage is known. */
export interface Admission {
  headers: Record<string, string>;
  /** Charges the final usage (or releases the reservation when nothing was used). */
  settle(settlement: Settlement | null): Promise<void>;
}

/**
 * Rate limits, quotas and billing on the request path. The default admits everything;
 * the accounts/limits module replaces it.
 */
export interface RequestGuards {
  admit(request: AdmissionRequest): Promise<Admission>;
}

/** Everything the HTTP layer depends on; built by the composition root. */
export interface ServerDeps {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  clock: Clock;
  log: Logger;
  guards: RequestGuards;
  /** Stored Responses for previous_response_id and GET /v1/responses/{id}. */
  responses: ResponsesStore;
  dataDir: string;
  /** Token for /admin/trpc (random per server start, published in the data dir). */
  adminToken?: string;
  /** Temporary images and the media janitor; built on first use when absent. */
  media?: MediaRuntime;
}
