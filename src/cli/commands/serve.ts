import type { Command } from 'commander';
import { startServer } from '../../app/serve.ts';
import { displayPath, type GatewayConfig } from '../../config/index.ts';
import { createLogger, type Logger } from '../../util/logger.ts';
import { resolveContext, type CliContext } from '../context.ts';
import { print } from '../format-table.ts';

/** Says what a first run would otherwise leave the user to guess: no config file, or no providers. */
function describeConfigSource(ctx: CliContext, log: Logger): void {
  if (!ctx.filepath) {
    print(`No config file found from ${process.cwd()}: serving the built-in offline mock provider (try model "mock/echo"). Run \`gateway init\` to write gateway.config.ts.`);
    return;
  }
  if (!hasEnabledProvider(ctx.config)) {
    log.warn(`${displayPath(ctx.filepath)} configures no providers: every model request will answer 404 model_not_found. Add one under "providers" (\`gateway init\` writes a commented example).`);
  }
}

function hasEnabledProvider(config: GatewayConfig): boolean {
  return Object.values(config.providers).some((p) => p.enabled !== false);
}

/** `gateway serve`: runs until SIGINT/SIGTERM, then drains in-flight requests and exits 0. */
export async function serve(cmd: Command, opts: { port?: number; host?: string }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const log = createLogger(ctx.config.logging.level);
  describeConfigSource(ctx, log);
  const running = await startServer({
    config: ctx.config,
    configDir: ctx.configDir,
    configFile: ctx.filepath,
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
