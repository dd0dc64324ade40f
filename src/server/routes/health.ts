import type { H3Event } from 'h3';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';

const STARTED = Date.now();

/** GET /health: liveness plus what is configured; needs no key. */
export function health(deps: ServerDeps) {
  return (event: H3Event): string =>
    json(event, {
      status: 'ok',
      uptime_seconds: Math.floor((Date.now() - STARTED) / 1000),
      providers: [...deps.registry.providers.keys()],
      models: deps.registry.models.length,
    });
}
