import type { Command } from 'commander';
import { limitHeapGrowth, limitYoungGeneration, startServer, type RunningServer } from '../../app/index.ts';
import { displayPath, type GatewayConfig } from '../../config/index.ts';
import { createLogger, type Logger } from '../../util/index.ts';
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

/**
 * `gateway serve`: runs until SIGINT/SIGTERM, then drains in-flight requests and exits 0. The
 * signal handlers are installed before the start, so a signal that arrives while the server
 * starts (or right after its ready line) still stops it cleanly.
 */
export async function serve(cmd: Command, opts: { port?: number; host?: string }): Promise<void> {
  limitHeapGrowth();
  limitYoungGeneration();
  const ctx = await resolveContext(cmd);
  const log = createLogger(ctx.config.logging.level);
  describeConfigSource(ctx, log);
  let running: RunningServer | undefined;
  let requested = false;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const stop = (server: RunningServer) =>
    server.stop().then(finish, (error: unknown) => {
      log.error('shutdown failed', { error: String(error) });
      process.exitCode = 1;
      finish();
    });
  const onSignal = (signal: NodeJS.Signals) => {
    log.info(`${signal}: stopping (in-flight requests may finish)`);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (running) void stop(running);
    else requested = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    running = await startServer({
      config: ctx.config,
      configDir: ctx.configDir,
      configFile: ctx.filepath,
      dataDir: ctx.dataDir,
      port: opts.port ?? ctx.config.server.port,
      host: opts.host ?? ctx.config.server.host,
      log,
      print,
    });
  } catch (error) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    throw error;
  }
  if (requested) void stop(running);
  await finished;
}
