export { CounterFamily, GaugeFamily, HistogramFamily, DEFAULT_MAX_SERIES } from './metric-families.ts';
export { GatewayMetrics, DURATION_BUCKETS, TTFT_BUCKETS, TOKEN_BUCKETS, type GatewayMetricsOptions } from './gateway-metrics.ts';
export { RequestRecord, modelPart, providerPart, type RecordedFallback, type RecordConsumer } from './request-record.ts';
export { Observer, type ObserverOptions, type RequestTracer } from './observer.ts';
export type { AttemptObserver, AttemptOutcome, CircuitView, SettledCharge, SettledUsage, UpstreamConnectionView } from './types.ts';
export { createObserver, type CreateObserverOptions } from './create-observer.ts';
export { ActivityWindow, type ActivitySnapshot, type FallbackCount, type LatestRequest, type Percentiles } from './activity-window.ts';
export { createRequestLog, requestLogLine } from './request-log.ts';
export { loadTracer } from './load-tracer.ts';
