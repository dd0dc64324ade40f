import type { H3 } from 'h3';
import { configSource, type GatewayConfig } from '../config/index.ts';
import { ProviderRegistry } from '../providers/index.ts';
import { BatchExecutor, startFilesExpiry } from '../batches/index.ts';
import { JobRunner, readMasterSecret } from '../jobs/index.ts';
import { createApp, createRequestReaders } from '../server/index.ts';
import { createMediaRuntime } from '../media/index.ts';
import { logUpstreamFailures } from './log-upstream-failures.ts';
import { parseMediaConfig } from '../media/index.ts';
import type { ServerDeps } from '../server/index.ts';
import { startResponsesExpiry } from '../responses-store/index.ts';
import { openStore, reportStoreOpening } from '../store/index.ts';
import { readInstanceId } from '../store/index.ts';
import { openAccountGuards } from './open-credits.ts';
import { hasPrice } from '../billing/index.ts';
import { createClock, type Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { createObserver, providerPart, type CircuitView } from '../observability/index.ts';
import { createRouter, type Router } from '../routing/index.ts';

export interface GatewayOptions {
  config: GatewayConfig;
  /** Directory plugin paths in the config are relative to. */
  configDir: string;
  /** The config file, named in config errors found while setting up providers. */
  configFile?: string;
  dataDir: string;
  log: Logger;
  clock?: Clock;
  adminToken?: string;
}

/** A composed gateway: the h3 app and what it owns. */
export interface Gateway {
  app: H3;
  deps: ServerDeps;
  close(): Promise<void>;
}

/** The composition root: store, providers, guards and HTTP app, wired from the config. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const clock = options.clock ?? createClock();
  const mediaSettings = parseMediaConfig(options.config.media, configSource(options.configFile)); // a config error before anything opens
  // Providers before the store: a config mistake in a provider entry stops the start before the data dir is touched.
  const registry = await ProviderRegistry.create(options.config, { configDir: options.configDir, log: options.log, source: configSource(options.configFile) });
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    const warn = (message: string, fields?: Record<string, unknown>) => options.log.warn(message, fields);
    store = await openStore({ dataDir: options.dataDir, postgres: options.config.store?.postgres, poolSize: options.config.store?.poolSize, synchronousCommit: options.config.store?.synchronousCommit, queryTimeoutMs: options.config.store?.queryTimeoutMs, warn });
  } catch (error) {
    await registry.close();
    throw error;
  }
  reportStoreOpening(store, options.log);
  let webhookMaster: string;
  try {
    // A webhook-secret file that holds no secret stops the start here, before anything runs.
    webhookMaster = readMasterSecret(mediaSettings.jobs.webhookSecret, options.dataDir, (message) => options.log.warn(message));
  } catch (error) {
    await registry.close();
    await store.close();
    throw error;
  }
  warnUnpriced(registry, options.config, options.log);
  let guards;
  try {
    guards = await openAccountGuards({ config: options.config, store, registry, clock, log: options.log, dataDir: options.dataDir });
  } catch (error) {
    await registry.close();
    await store.close();
    throw error;
  }
  const router = createRouter(registry, options.config.routing);
  const observer = await createObserver({
    metrics: options.config.metrics,
    requestLog: options.config.logging.requests,
    baseDir: options.configDir,
    log: options.log,
    circuits: () => openCircuits(router),
    connections: () => registry.connectionStats(),
  });
  let media;
  try {
    media = createMediaRuntime({ config: options.config, dataDir: options.dataDir, store, clock, log: options.log });
  } catch (error) {
    await registry.close();
    await guards.close();
    await store.close();
    throw error;
  }
  const deps: ServerDeps = {
    config: options.config,
    store,
    registry,
    router,
    clock,
    log: options.log,
    guards,
    credits: guards.credits,
    dataDir: options.dataDir,
    adminToken: options.adminToken,
    observer,
    media,
    ...createRequestReaders(options.config),
  };
  media.start();
  const stopResponsesExpiry = startResponsesExpiry({ store, clock, log: options.log });
  const stopFilesExpiry = startFilesExpiry({ store, clock, log: options.log });
  const instanceId = readInstanceId(options.dataDir, (message) => options.log.warn(message));
  const executor = new BatchExecutor({ config: options.config, store, registry, router, guards, clock, log: options.log, instanceId, onLine: (outcome) => observer.countBatchLine(outcome) });
  deps.batches = executor;
  executor.start();
  const mediaConfig = deps.media.config;
  const jobs = new JobRunner({ store, registry, guards, clock, log: options.log, dataDir: options.dataDir, config: mediaConfig.jobs, webhookMaster, instanceId, sweepEveryMs: mediaConfig.purgeIntervalSeconds * 1000, library: deps.media.library });
  deps.jobs = jobs;
  jobs.start();
  const stopLogging = logUpstreamFailures(router.breaker, options.log);
  return {
    app: createApp(deps),
    deps,
    async close() {
      stopLogging();
      // The sweeps started above may be running on the store and the data dir: each is waited for before the store closes.
      await Promise.all([stopResponsesExpiry(), stopFilesExpiry(), deps.media.stop()]);
      await jobs.stop();
      await executor.stop();
      await registry.close();
      await guards.close();
      await observer.close();
      await store.close();
    },
  };
}

/** One start-up line naming the models with no price (billing.unpriced says whether they are free or refused). */
function warnUnpriced(registry: ProviderRegistry, config: GatewayConfig, log: Logger): void {
  const unpriced = registry.models.filter((m) => !hasPrice(m.spec.pricing)).map((m) => m.id);
  if (unpriced.length === 0) return;
  const policy = config.billing.unpriced;
  const what = policy === 'reject' ? 'requests to them are refused' : 'they are served free';
  log.warn(`${unpriced.length} model(s) have no price, ${what} (billing.unpriced: '${policy}'); add pricing to their config entries: ${unpriced.join(', ')}`);
}

function openCircuits(router: Router): CircuitView[] {
  return router.breaker.openCircuits().map((c) => ({ provider: providerPart(c.key), model: c.key, openedAt: c.openedAt }));
}
