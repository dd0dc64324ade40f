/** The transport to upstreams: pooled undici clients, bodies read by callback, transport errors. */
export { UndiciHttpFactory, DEFAULT_TIMEOUTS } from './http-client.ts';
export { DEFAULT_CONNECTION_LIMITS } from './connection-gate.ts';
export { UpstreamBody } from './upstream-body.ts';
export { chunkSourceOf } from './chunk-source.ts';
export { readBody, readJsonBody, bodyFrom } from './read-body.ts';
export { isTransportError, mapTransportError } from './map-transport-error.ts';
export { classifyUpstreamError, upstreamError, parseRetryAfter, QUOTA_EXHAUSTED, type UpstreamErrorFacts, type UpstreamErrorPhase, type UpstreamErrorReport } from './classify-upstream-error.ts';
export { UpstreamHttpError, isUpstreamHttpError } from './upstream-http-error.ts';
export type { ChunkHandler, ChunkSource, ConnectionLimits, ConnectionStats, HttpClient, HttpClientFactory, HttpRequest, UpstreamResponse, UpstreamTimeouts } from './types.ts';
