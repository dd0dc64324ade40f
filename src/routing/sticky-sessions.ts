import type { RoutePlan } from './types.ts';

/** The `routing.sticky` settings (src/config/routing-schema.ts). */
export interface StickyOptions {
  enabled: boolean;
  ttlMs: number;
  maxSessions: number;
}

/**
 * Session key → the `provider/model` that served the session's first request, so later
 * requests of the session reach the same provider and its prompt cache (a cache is per
 * provider: without this, two equal providers halve the hit rate). In memory, per instance,
 * bounded (the oldest session is forgotten first) and expiring `ttlMs` after its last use.
 */
export class StickySessions {
  private readonly sessions = new Map<string, { model: string; at: number }>();

  constructor(private readonly options: StickyOptions) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  /**
   * `plan` with the session's model first when it is one of the candidates and `healthy` says
   * its circuit lets calls through; the plan unchanged otherwise (a new session, an expired one,
   * a provider that is down: the session then moves to whoever serves it next).
   */
  order(plan: RoutePlan, key: string, now: number, healthy: (model: string) => boolean): RoutePlan {
    const session = this.sessions.get(key);
    if (!session || now - session.at > this.options.ttlMs) return plan;
    const index = plan.primary.findIndex((model) => model.id === session.model);
    if (index <= 0 || !healthy(session.model)) return plan;
    const primary = [plan.primary[index], ...plan.primary.slice(0, index), ...plan.primary.slice(index + 1)];
    return { ...plan, primary };
  }

  /** Notes who served the session now (refreshing its time). */
  served(key: string, model: string, now: number): void {
    this.sessions.delete(key);
    if (this.sessions.size >= this.options.maxSessions) {
      const oldest = this.sessions.keys().next();
      if (!oldest.done) this.sessions.delete(oldest.value);
    }
    this.sessions.set(key, { model, at: now });
  }
}
