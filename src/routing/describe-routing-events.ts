import type { RoutingEvent } from '../ir/index.ts';
import type { FallbackInfo, RoutingInfo } from './types.ts';

/**
 * The reliability events of a routed request (spec §6.4): `routing` always, `fallback` when
 * another candidate than the first one tried served. Each format puts them on its wire.
 */
export function describeRoutingEvents(routing: RoutingInfo, fallback: FallbackInfo | undefined): RoutingEvent[] {
  const details: Record<string, unknown> = {
    mode: routing.mode,
    requested_model: routing.requested,
    resolved_model: routing.resolved,
    provider: routing.resolved.slice(0, routing.resolved.indexOf('/')),
    attempts: routing.attempts,
  };
  if (routing.strategy) details.strategy = routing.strategy;
  const events: RoutingEvent[] = [{ name: 'routing', details }];
  if (fallback) {
    events.push({
      name: 'fallback',
      details: { used: true, provider: fallback.provider, resolved_model: fallback.model, from: fallback.from, reason: fallback.reason, discount: fallback.discount },
    });
  }
  return events;
}
