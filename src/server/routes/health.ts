import type { H3Event } from 'h3';
import type { ProviderRegistry } from '../../providers/index.ts';
import { type CircuitSnapshot } from '../../routing/index.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';

const STARTED = Date.now();

/** One provider as /health reports it. */
interface ProviderHealth {
  id: string;
  /** `ok`: no circuit open; `degraded`: some open, some model can still be served; `down`: none can. */
  state: 'ok' | 'degraded' | 'down';
  models: number;
  /** Circuits with failures since their last success (open, half-open, or closed and counting). */
  circuits: Array<{ model: string; state: CircuitSnapshot['state']; failures: number; last_error?: { code: string; status?: number }; last_failure_at?: number }>;
}

/** Per provider: its circuits and whether any of its models can be served. */
function providerHealth(registry: ProviderRegistry, circuits: CircuitSnapshot[]): ProviderHealth[] {
  const byProvider = new Map<string, CircuitSnapshot[]>();
  for (const c of circuits) {
    const id = c.key.slice(0, c.key.indexOf('/'));
    byProvider.set(id, [...(byProvider.get(id) ?? []), c]);
  }
  const openKeys = new Set(circuits.filter((c) => c.state === 'open').map((c) => c.key));
  const catalog = new Map<string, string[]>();
  for (const m of registry.models) catalog.set(m.provider.id, [...(catalog.get(m.provider.id) ?? []), m.id]);
  return [...registry.providers.keys()].map((id) => {
    const own = byProvider.get(id) ?? [];
    const open = own.filter((c) => openKeys.has(c.key)).length;
    const models = catalog.get(id) ?? [];
    // A catalogued model whose circuit is not open can be served; a `'*'`-only provider is judged by the circuits it has.
    const servable = models.length > 0 ? models.some((m) => !openKeys.has(m)) : own.length === 0 || open < own.length;
    const state = open === 0 ? 'ok' : servable ? 'degraded' : 'down';
    return {
      id,
      state,
      models: models.length,
      circuits: own.map((c) => ({
        model: c.key,
        state: c.state,
        failures: c.failures,
        ...(c.lastError ? { last_error: c.lastError } : {}),
        ...(c.lastFailureAt !== undefined ? { last_failure_at: Math.floor(c.lastFailureAt / 1000) } : {}),
      })),
    };
  });
}

/**
 * GET /health: liveness and whether any provider can serve, from the routing state in memory
 * (no upstream call, no store read, exempt from limits). 503 when no provider can serve:
 * none configured, or every one's circuits open; or when the data dir cannot be written
 * (`storage.writable: false`, with the error); or when the shared rate-limit store (Redis) cannot
 * be reached and the instance fails closed (`limits.reachable: false`; degraded when it fails open);
 * or when the shared database (PostgreSQL) cannot be reached (`database.reachable: false`: every
 * request that needs it answers 503), known from memory: no query per poll.
 */
export function health(deps: ServerDeps) {
  return (event: H3Event): string => {
    const circuits = deps.router.breaker.snapshot();
    const providers = providerHealth(deps.registry, circuits);
    const serving = providers.filter((p) => p.state !== 'down').length;
    const storage = deps.guards.storage?.state() ?? { writable: true };
    const limits = deps.guards.limitsStore?.();
    const database = deps.store.database?.state();
    // A data dir that cannot be written: billed requests are refused (no answer without its record).
    // A Redis that cannot be reached: failing closed, every limited request is refused; open, limits are not enforced.
    // A database that cannot be reached: every request reading or writing it (views, spend-limited admissions) is refused.
    const refusing = !storage.writable || database?.reachable === false || (limits !== undefined && !limits.reachable && limits.on_error === 'closed');
    const status = serving === 0 || refusing ? 'unavailable' : providers.every((p) => p.state === 'ok') && (limits?.reachable ?? true) ? 'ok' : 'degraded';
    event.res.headers.set('cache-control', 'no-store');
    return json(
      event,
      {
        status,
        uptime_seconds: Math.floor((Date.now() - STARTED) / 1000),
        providers: providers.map((p) => p.id),
        models: deps.registry.models.length,
        provider_health: providers,
        storage,
        ...(limits ? { limits } : {}),
        ...(database ? { database } : {}),
      },
      status === 'unavailable' ? 503 : 200,
    );
  };
}
