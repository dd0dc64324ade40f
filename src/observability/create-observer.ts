import type { Logger } from '../util/logger.ts';
import type { MetricsConfig } from '../config/index.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { Observer, type RecordConsumer } from './observer.ts';
import type { CircuitView } from './types.ts';

export interface CreateObserverOptions {
  metrics: MetricsConfig;
  /** The circuits open now (from the router). */
  circuits: () => CircuitView[];
  log: Logger;
  /** Process metrics of the client library (CPU, memory, event loop, GC); default true. */
  processMetrics?: boolean;
}

/** Builds the observer from the config: metrics when enabled. */
export async function createObserver(options: CreateObserverOptions): Promise<Observer> {
  const consumers: RecordConsumer[] = [];
  let observer: Observer | undefined;
  const metrics = options.metrics.enabled
    ? new GatewayMetrics({ active: () => observer?.active ?? 0, circuits: options.circuits, processMetrics: options.processMetrics })
    : undefined;
  observer = new Observer({
    metrics,
    consumers,
    onError: (message, error) => options.log.warn(message, { error: error instanceof Error ? error.message : String(error) }),
  });
  return observer;
}
