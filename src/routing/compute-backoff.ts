import type { GatewayError } from '../errors/index.ts';
import type { RoutingConfig } from '../config/index.ts';

type RetryPolicy = RoutingConfig['retry'];

/** Full-jitter exponential backoff: a random wait in [0, min(maxMs, baseMs·2^(retry-1))]. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  if (retry <= 0) return 0;
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait before calling the same candidate again after `error`, or undefined when
 * it should not be called again: the error is not retryable, the upstream refused the
 * gateway's credentials, or its Retry-After is longer than `maxMs` (the client gets the 429
 * with Retry-After instead of a gateway that sits on the request).
 */
export function retryDelayMs(error: GatewayError, retry: number, policy: RetryPolicy, random: () => number): number | undefined {
  if (!error.retryable) return undefined;
  const upstreamStatus = error.details?.upstream_status;
  if (upstreamStatus === 401 || upstreamStatus === 403) return undefined;
  // The gateway's own quota with that provider is spent (OpenAI's insufficient_quota): only another candidate can serve.
  if (error.details?.upstream_quota_exhausted === true) return undefined;
  const jittered = backoffMs(retry, policy, random);
  const retryAfterMs = error.retryAfterMs ?? (error.retryAfter === undefined ? undefined : error.retryAfter * 1000);
  if (retryAfterMs === undefined) return jittered;
  if (retryAfterMs > policy.maxMs) return undefined;
  return Math.max(retryAfterMs, jittered);
}
