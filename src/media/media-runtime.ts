import type { GatewayConfig } from '../config/index.ts';
import type { Store } from '../store/index.ts';
import { createTurns, type Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { purgeExpiredMedia, type MediaLibraryWriter } from './library.ts';
import { parseMediaConfig, type MediaConfig } from './media-config.ts';
import { TempImageStore } from './temp-image-store.ts';

/** What the media routes share for the life of a server: config, temporary images, the library, the janitor. */
export interface MediaRuntime {
  config: MediaConfig;
  tempImages: TempImageStore;
  /** The Media Library of this gateway: every route and job that changes records goes through it (its per-account turns). */
  library: MediaLibraryWriter;
  /** Purges expired library records and temporary images now; returns how many of each. */
  purge(): Promise<{ records: number; images: number }>;
  /** Starts the periodic purge (an unref'd timer) after one purge at start. */
  start(): void;
  /** Stops the periodic purge; resolves once a purge under way has ended. */
  stop(): Promise<void>;
}

export interface MediaRuntimeOptions {
  config: GatewayConfig;
  dataDir: string;
  store: Store;
  clock: Clock;
  log?: Logger;
}

/** Builds the media runtime from the config's `media` section. */
export function createMediaRuntime(options: MediaRuntimeOptions): MediaRuntime {
  const config = parseMediaConfig(options.config.media);
  const tempImages = new TempImageStore(options.dataDir, options.clock, config.tempImageTtlSeconds * 1000);
  let timer: NodeJS.Timeout | undefined;
  const purge = async () => {
    const records = await purgeExpiredMedia({ store: options.store, clock: options.clock });
    const images = await tempImages.sweep();
    return { records, images };
  };
  // With a shared database one instance per interval purges the records (a little less than
  // the interval, so timers that drift apart still run it each time); temporary images are this instance's own.
  const periodic = async () => {
    const store = options.store;
    const mine = store.claimJob ? await store.claimJob('media-purge', config.purgeIntervalSeconds * 900) : true;
    const records = mine ? await purgeExpiredMedia({ store, clock: options.clock }) : 0;
    return { records, images: await tempImages.sweep() };
  };
  let running: Promise<void> | undefined;
  const purgeQuietly = () => {
    if (running) return;
    running = periodic()
      .then((n) => {
        if (n.records + n.images > 0) options.log?.info('media: purged expired items', n);
      })
      .catch((error: unknown) => options.log?.warn('media: purge failed', { error: String(error) }))
      .finally(() => (running = undefined));
  };
  return {
    config,
    tempImages,
    library: { store: options.store, clock: options.clock, accountTurns: createTurns() },
    purge,
    start() {
      if (timer) return;
      purgeQuietly();
      timer = setInterval(purgeQuietly, config.purgeIntervalSeconds * 1000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
