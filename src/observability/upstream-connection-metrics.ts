import { CounterFamily, DEFAULT_MAX_SERIES, GaugeFamily } from './metric-families.ts';
import type { UpstreamConnectionView } from './types.ts';

/**
 * The series of the providers' upstream connection gates, read from the HTTP clients at each
 * scrape (docs/observability.md): connections in use, calls waiting, and calls refused a
 * connection (`reason`: `queue_full` or `queue_timeout`), each such call a 503 to its client.
 */
export function upstreamConnectionFamilies(connections: () => UpstreamConnectionView[]): Array<CounterFamily | GaugeFamily> {
  const inUse = new GaugeFamily('gateway_upstream_connections_in_use', 'Upstream calls in flight per provider (each holds one connection).', ['provider'], (family) => {
    for (const view of connections()) family.child(view.provider).set(view.inUse);
  });
  const queued = new GaugeFamily('gateway_upstream_queued', 'Upstream calls waiting for a free connection per provider (bounded by maxQueued).', ['provider'], (family) => {
    for (const view of connections()) family.child(view.provider).set(view.queued);
  });
  const refused = new CounterFamily(
    'gateway_upstream_queue_refused_total',
    'Requests answered 503 because no upstream connection of the provider was free in time (queue_timeout) or its queue was full (queue_full).',
    ['provider', 'reason'],
    DEFAULT_MAX_SERIES,
    (family) => {
      for (const view of connections()) {
        family.child(view.provider, 'queue_full').value = view.refusedFull;
        family.child(view.provider, 'queue_timeout').value = view.refusedTimeout;
      }
    },
  );
  return [inUse, queued, refused];
}
