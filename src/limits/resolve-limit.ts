import { isExemptRoute, isGenerationRoute, matchEndpointLimit } from './classify-route.ts';
import type { RateLimitConfig } from '../config/index.ts';
import { accountGenerationKeys, accountKeys, accountSlotKeys, apiKeyLimitKeys, apiKeySlotKeys } from './limiter-keys.ts';
import { normalizeIp } from './normalize-ip.ts';
import type { LimitScope, LimitSubject, ResolvedConcurrency, ResolvedLimit } from './types.ts';

interface Identity {
  scope: LimitScope;
  key: string;
}

/**
 * The one limit that governs a request, per spec §8.1, most specific first:
 * (1) the API key's custom RPM, on every non-exempt endpoint;
 * (2) on AI-generation endpoints, the account's tier limit: an operator-set custom account RPM
 *     if present, else `tiers[tier]` (enterprise: 1,000,000 by default, the spec's "custom,
 *     effectively unlimited"); a tier set to null is unlimited and ends the search (it does not fall
 *     through to the stricter endpoint limits), so such a tier is never throttled below free;
 * (3) the endpoint's limit (login counts per client IP, others per caller);
 * (4) the global default per caller.
 * Returns null for exempt endpoints and unlimited callers. Only positive RPMs count as set.
 */
export function resolveLimit(subject: LimitSubject, config: RateLimitConfig): ResolvedLimit | null {
  const { method, path } = subject;
  if (isExemptRoute(method, path)) return null;
  const windowMs = config.windowMs;

  const keyRpm = subject.apiKey?.rpm;
  if (subject.apiKey && isSet(keyRpm)) {
    return { limit: keyRpm, windowMs, scope: 'api_key', key: apiKeyLimitKeys.of(subject.apiKey.id), source: 'api_key' };
  }

  const account = subject.account;
  if (account && isGenerationRoute(method, path)) {
    const tierRpm = isSet(account.rpm) ? account.rpm : account.tier ? config.tiers[account.tier] : undefined;
    if (tierRpm === null) return null;
    if (tierRpm !== undefined) return { limit: tierRpm, windowMs, scope: 'user', key: accountGenerationKeys.of(account.id), source: 'tier' };
  }

  const caller = callerIdentity(subject);
  const endpoint = matchEndpointLimit(config.endpoints, method, path);
  if (endpoint) {
    const who = endpoint.limit.per === 'ip' ? ipIdentity(subject.ip) : caller;
    return { limit: endpoint.limit.rpm, windowMs, scope: who.scope, key: `${who.key}:ep:${endpoint.pattern}`, source: 'endpoint' };
  }

  if (config.default === null) return null;
  return { limit: config.default, windowMs, scope: caller.scope, key: `${caller.key}:all`, source: 'default' };
}

/**
 * The concurrency cap for a request: AI-generation endpoints only, per API key (an account's
 * keys each have their own slots), sized by the account's tier (`concurrency.default` when the
 * tier is unknown). Null when exempt or unlimited.
 */
export function resolveConcurrency(subject: LimitSubject, config: RateLimitConfig): ResolvedConcurrency | null {
  if (!isGenerationRoute(subject.method, subject.path)) return null;
  const tier = subject.account?.tier;
  const max = tier ? config.concurrency.tiers[tier] : config.concurrency.default;
  if (max === null) return null;
  return { max, ttlMs: config.concurrency.ttlMs, key: slotKey(subject) };
}

/** Where a caller's slots are counted: its API key's, else its account's, else its address's; never a rate-limit window's key. */
function slotKey(subject: LimitSubject): string {
  if (subject.apiKey) return apiKeySlotKeys.of(subject.apiKey.id);
  if (subject.account) return accountSlotKeys.of(subject.account.id);
  return `${ipIdentity(subject.ip).key}:gen`;
}

function callerIdentity(subject: LimitSubject): Identity {
  if (subject.account) return { scope: 'user', key: accountKeys.of(subject.account.id) };
  if (subject.apiKey) return { scope: 'api_key', key: apiKeyLimitKeys.of(subject.apiKey.id) };
  return ipIdentity(subject.ip);
}

function ipIdentity(ip: string): Identity {
  return { scope: 'ip', key: `ip:${normalizeIp(ip)}` };
}

function isSet(rpm: number | null | undefined): rpm is number {
  return typeof rpm === 'number' && Number.isFinite(rpm) && rpm > 0;
}
