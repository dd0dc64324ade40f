import type { H3Event } from 'h3';
import type { GatewayConfig } from '../config/index.ts';
import type { CreditsUsage } from '../credits/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import type { RequestGuards } from '../accounts/index.ts';
import type { MediaRuntime } from '../media/index.ts';
import type { Observer } from '../observability/index.ts';
import type { JobRunner } from '../jobs/index.ts';
import type { Router } from '../routing/index.ts';
import type { BodyBudget } from './body-budget.ts';

/** Everything the HTTP layer depends on; built by the composition root. */
export interface ServerDeps {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  clock: Clock;
  log: Logger;
  guards: RequestGuards;
  /** The credit engine's usage view, for the admin procedures. */
  credits: CreditsUsage;
  dataDir: string;
  /** Token for /admin/trpc (random per server start, published in the data dir). */
  adminToken?: string;
  /** The one router: breakers and latency state of this gateway. */
  router: Router;
  /** Temporary images and the media janitor. */
  media: MediaRuntime;
  /** The batch executor (absent in processes that run no batches). */
  batches?: { wake(): void };
  /** The media job runner (absent in processes that run no jobs: /v1/videos answers 503 there). */
  jobs?: JobRunner;
  /** Metrics, traces, the request log and the live activity window. */
  observer: Observer;
  /** The bytes of large JSON bodies parsed at once across every route (`server.bodyLimits.inFlight`): one per gateway. */
  bodyBudget: BodyBudget;
  /** A request's client address under `server.trustProxy` (its policy compiled once). */
  clientAddress(event: H3Event): string;
}
