import { timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { credentialOf } from '../auth.ts';
import { sendBody } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics (config `metrics.path`): the Prometheus text exposition. No API key and no
 * rate limit (it never asks the request guards); with `metrics.token` the scraper must send
 * `Authorization: Bearer <token>`.
 */
export function metricsRoutes(deps: ServerDeps): RouteDef[] {
  const metrics = deps.observer.metrics;
  const config = deps.config.metrics;
  if (!metrics || !config.enabled) return [];
  const token = config.token;
  const handler = async (event: H3Event): Promise<unknown> => {
    if (token !== undefined) {
      const given = credentialOf(event);
      if (!given || !sameSecret(given, token)) throw new GatewayError('authentication_error', 'The metrics endpoint needs "Authorization: Bearer <metrics.token>".');
    }
    return sendBody(event, 200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }, await metrics.render());
  };
  return [{ method: 'GET', path: config.path, handler }];
}
