import type { CatalogModel } from '../providers/index.ts';
import type { RoutingStrategy } from '../config/index.ts';

/** `pinned`: the client named `provider/model`; `auto`: a bare id the router placed. */
export type RoutingMode = 'pinned' | 'auto';

/** Where a request may go, in the order the router will try it. */
export interface RoutePlan {
  mode: RoutingMode;
  requested: string;
  /** The strategy that ordered `primary` (auto mode). */
  strategy?: RoutingStrategy;
  /** The pinned model, or the providers of the bare id in strategy order. */
  primary: CatalogModel[];
  /** The config's explicit fallback chain, then the request's own list, expanded and deduplicated, tried after `primary`. */
  chain: CatalogModel[];
  /** The models of `chain` only the request's own list (OpenRouter's `models`) named: the client's pick, no fallback discount. */
  chosen?: ReadonlySet<string>;
}

/** How a served request was routed (headers, events, settlement). */
export interface RoutingInfo {
  mode: RoutingMode;
  strategy?: RoutingStrategy;
  /** The model id the client asked for. */
  requested: string;
  /** The `provider/model` that served. */
  resolved: string;
  /** Upstream calls made, the serving one included. */
  attempts: number;
}

/** Set when a candidate other than the first one tried served the request. */
export interface FallbackInfo {
  /** The provider that served. */
  provider: string;
  /** The `provider/model` that served. */
  model: string;
  /** The `provider/model` that failed first. */
  from: string;
  /** The error code that made the router leave the first candidate. */
  reason: string;
  /** Fraction taken off the price (0.1 = 10% off). */
  discount: number;
}
