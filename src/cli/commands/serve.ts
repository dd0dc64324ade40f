import type { Command } from 'commander';
import { startServer } from '../../app/serve.ts';
import { createLogger } from '../../util/logger.ts';
import { resolveContext } from '../context.ts';
import { print } from '../format-table.ts';

/** `gateway serve`: runs until SIGINT/SIGTERM, then drains in-flight requests and exits 0. */
export async function serve(cmd: Command, opts: { port?: number; host?: string }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const log = createLogger(ctx.config.logging.level);
  const running = await startServer({
    config: ctx.config,
    configDir: ctx.configDir,
    dataDir: ctx.dataDir,
    port: opts.port ?? ctx.config.server.port,
    host: opts.host ?? ctx.config.server.host,
    log,
    print,
  });
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info(`${signal}: stopping (in-flight requests may finish)`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      running.stop().then(resolve, (error: unknown) => {
        log.error('shutdown failed', { error: String(error) });
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
