import type { Logger } from '../util/index.ts';
import type { MetricsConfig, RequestLogTarget } from '../config/index.ts';
import { loadTracer } from './load-tracer.ts';
import { createRequestLog } from './request-log.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { Observer } from './observer.ts';
import type { RecordConsumer } from './request-record.ts';
import type { CircuitView, UpstreamConnectionView } from './types.ts';

export interface CreateObserverOptions {
  metrics: MetricsConfig;
  /** `logging.requests`: 'stdout', a file path (relative to `baseDir`), or false. */
  requestLog: RequestLogTarget;
  /** Where a relative request log path starts (the config file's folder). */
  baseDir: string;
  /** The circuits open now (from the router). */
  circuits: () => CircuitView[];
  /** Each provider's upstream connections (from the registry's HTTP clients). */
  connections?: () => UpstreamConnectionView[];
  log: Logger;
  /** Where the OTEL_* variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Process metrics of the client library (CPU, memory, event loop, GC); default true. */
  processMetrics?: boolean;
}

/** Builds the observer from the config: metrics when enabled, the request log when configured, the live window always. */
export async function createObserver(options: CreateObserverOptions): Promise<Observer> {
  const consumers: RecordConsumer[] = [];
  if (options.requestLog !== false) consumers.push(createRequestLog(options.requestLog, options.baseDir));
  let observer: Observer | undefined;
  const metrics = options.metrics.enabled
    ? new GatewayMetrics({ active: () => observer?.activeRequests ?? 0, circuits: options.circuits, connections: options.connections, processMetrics: options.processMetrics })
    : undefined;
  const tracer = await loadTracer(options.env);
  if (tracer) options.log.info('tracing: spans exported over OTLP/HTTP');
  observer = new Observer({
    metrics,
    tracer,
    consumers,
    circuits: options.circuits,
    onError: (message, error) => options.log.warn(message, { error: error instanceof Error ? error.message : String(error) }),
  });
  return observer;
}
