import type { H3Event } from 'h3';
import { checkEndpointScope } from '../accounts/index.ts';
import { GatewayError } from '../errors/index.ts';
import { findFormat, type CredentialSource } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import { sha256 } from '../util/index.ts';
import type { AuthContext } from '../accounts/index.ts';
import { requestState } from './context.ts';
import type { ServerDeps } from './types.ts';

// sha256 of the same few keys on every request: remembered (hash only, validity is checked each time).
const hashes = new Map<string, string>();
const HASHES_KEPT = 1024;

function hashOf(token: string): string {
  let hash = hashes.get(token);
  if (hash === undefined) {
    if (hashes.size >= HASHES_KEPT) hashes.clear();
    hash = sha256(token);
    hashes.set(token, hash);
  }
  return hash;
}

const SIGV4 = /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//i;

/** A credential one format's SDKs send (besides Bearer and X-API-Key, which every route reads). */
function formatCredential(event: H3Event, sources: readonly CredentialSource[]): string | undefined {
  for (const source of sources) {
    let value: string | null | undefined;
    if (source.header) {
      value = event.req.headers.get(source.header)?.trim();
      if (value && source.sigv4) value = SIGV4.exec(value)?.[1];
      else if (value && source.scheme) value = value.toLowerCase().startsWith(source.scheme.toLowerCase()) ? value.slice(source.scheme.length).trim() : undefined;
    } else if (source.query) value = event.url.searchParams.get(source.query)?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * The bearer token or X-API-Key of a request, if any; on a format's route, also the headers
 * and query parameters that format's SDKs send the key in (its `credentials`).
 */
export function credentialOf(event: H3Event, format?: WireFormat): string | undefined {
  const header = event.req.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match) return match[1].trim();
  }
  const key = event.req.headers.get('x-api-key')?.trim();
  if (key) return key;
  const sources = format === undefined ? undefined : findFormat(format)?.credentials;
  return sources && sources.length > 0 ? formatCredential(event, sources) : undefined;
}

function hintOf(source: CredentialSource): string {
  if (source.sigv4) return 'an AWS SigV4 signature with sk-… as its access key id';
  return source.header ? `"${source.header}: ${source.scheme ? `${source.scheme} ` : ''}sk-…"` : `?${source.query}=sk-…`;
}

/** Every way a route takes the key, for the 401 that finds none: `"Authorization: Bearer sk-…", "X-API-Key: sk-…", "x-goog-api-key: sk-…" or ?key=sk-…`. */
function credentialHint(format: WireFormat | undefined): string {
  const own = (format === undefined ? undefined : findFormat(format)?.credentials) ?? [];
  const ways = ['"Authorization: Bearer sk-…"', '"X-API-Key: sk-…"', ...own.map(hintOf)];
  return `${ways.slice(0, -1).join(', ')} or ${ways.at(-1)}`;
}

/**
 * Why a credential that is no gateway key was refused, judged by its prefix only (the token is never quoted): the
 * dashboard's session token, the admin token, or a provider's own key an SDK sent (the OpenAI SDK sends
 * OPENAI_API_KEY, the AWS SDKs the environment's access key, when given no key). '' for an sk-gw- key.
 */
function notAKeyHint(token: string): string {
  if (token.startsWith('sk-gw-')) return '';
  const create = 'create an API key (sk-gw-…) with `gateway keys create` or on the dashboard\'s API keys page';
  if (token.startsWith('gws_')) return `: this is a dashboard session token, which only the dashboard's routes take; ${create}`;
  if (token.startsWith('gwa_')) return `: this is the server's admin token, which only the admin procedures take; ${create}`;
  return `: gateway API keys start with sk-gw- (a provider's own key, such as an OPENAI_API_KEY or AWS access key an SDK took from the environment, belongs in the gateway's config); ${create}`;
}

/** Authenticates an API key (spec §5): 401 when missing or invalid, 403 when the account is suspended. */
export function authenticateApiKey(event: H3Event, deps: ServerDeps, format?: WireFormat): AuthContext {
  const token = credentialOf(event, format);
  if (!token) throw new GatewayError('authentication_error', `No API key provided. Send it as ${credentialHint(format)}.`);
  const key = token.startsWith('sk-') ? deps.store.cache.keyByHash(hashOf(token)) : undefined;
  const now = deps.clock.now();
  if (!key || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now)) {
    throw new GatewayError('invalid_api_key', `The API key is invalid, expired or revoked${notAKeyHint(token)}.`);
  }
  const account = deps.store.cache.account(key.accountId);
  if (!account) throw new GatewayError('invalid_api_key', 'The API key is invalid, expired or revoked.');
  const record = requestState(event).record;
  if (record) {
    record.accountId = account.id;
    record.keyId = key.id;
  }
  if (account.suspended) throw new GatewayError('account_suspended', 'The account is suspended.');
  if (key.endpoints) checkEndpointScope(key, event.url.pathname, event.req.method);
  recordUse(deps, key, now);
  return { account, key };
}

/** How stale a key's stored last-use time may get: one store update per key per second at most. */
const LAST_USED_RESOLUTION_MS = 1000;

/**
 * Notes when a key was last used. The store update is in memory and written by its batched
 * writer, never awaited here, so the request path does not wait on disk. A write that fails is
 * the store's to report (once, throttled while it lasts), not every request's.
 */
function recordUse(deps: ServerDeps, key: AuthContext['key'], now: number): void {
  if (key.lastUsedAt != null && now - key.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
  void deps.store.keys.markUsed(key.id, now).catch(() => undefined);
}
