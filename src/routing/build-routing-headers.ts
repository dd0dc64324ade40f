import type { FallbackInfo, RoutingInfo } from './types.ts';

/** The response headers of spec §6.4 for a routed request. */
export function buildRoutingHeaders(routing: RoutingInfo, fallback?: FallbackInfo): Record<string, string> {
  const headers: Record<string, string> = {
    'x-routing-mode': routing.mode,
    'x-routing-resolved-model': routing.resolved,
    'x-routing-attempts': String(routing.attempts),
  };
  if (routing.strategy) headers['x-routing-strategy'] = routing.strategy;
  if (fallback) {
    headers['x-fallback-used'] = 'true';
    headers['x-fallback-provider'] = fallback.provider;
    headers['x-fallback-reason'] = fallback.reason;
    headers['x-fallback-discount'] = String(fallback.discount);
  }
  return headers;
}
