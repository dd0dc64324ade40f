import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { GatewayError, readBody, type HttpClientFactory } from 'gateway/plugin-kit';
import type { ServiceAccount } from './service-account.ts';

/** The scope Vertex AI needs. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A token is minted again this long before it expires (google-auth-library's default margin). */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** Where the bearer token of a Vertex call comes from. */
export interface TokenSource {
  /** A valid access token: the cached one, or a new one when it is near expiry. */
  token(): Promise<string>;
}

/** A static access token from the config (the operator refreshes it). */
export function staticToken(token: string): TokenSource {
  return { token: () => Promise.resolve(token) };
}

interface Minted {
  token: string;
  /** Epoch ms after which a new token is minted (expiry minus the margin). */
  refreshAt: number;
  expiresAt: number;
}

function tokenError(message: string): GatewayError {
  // Retryable: the request may go to another provider; the message names no secret.
  return new GatewayError('provider_error', `Could not get a Google access token: ${message}`);
}

/**
 * Service-account tokens (OAuth2 JWT bearer grant, RFC 7523): an RS256 assertion signed with
 * the key (jose), exchanged at the key's `token_uri`; one exchange in flight at a time, the token
 * cached until `REFRESH_MARGIN_MS` before it expires. While a refresh fails, a token that has
 * not expired yet is still used.
 */
export function serviceAccountTokens(account: ServiceAccount, http: HttpClientFactory, now: () => number = Date.now): TokenSource {
  const url = new URL(account.tokenUri);
  const client = http.client(url.origin);
  let key: Promise<CryptoKey> | undefined;
  let current: Minted | undefined;
  let pending: Promise<Minted> | undefined;

  async function assertion(): Promise<string> {
    key ??= importPKCS8(account.privateKey, 'RS256').catch((error: unknown) => {
      key = undefined;
      throw tokenError(`the service-account private_key is not an RSA PKCS#8 key (${(error as Error).name})`);
    });
    const iat = Math.floor(now() / 1000);
    const header = account.privateKeyId ? { alg: 'RS256', typ: 'JWT', kid: account.privateKeyId } : { alg: 'RS256', typ: 'JWT' };
    return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader(header)
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await key);
  }

  async function mint(): Promise<Minted> {
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: await assertion() });
    let response;
    try {
      response = await client.request({ method: 'POST', path: url.pathname + url.search, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() });
    } catch (error) {
      throw tokenError(`the token endpoint ${url.origin} did not answer (${(error as Error).message})`);
    }
    const text = (await readBody(response.body)).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: reported by status below
    }
    if (response.status !== 200 || typeof body.access_token !== 'string') {
      const reason = typeof body.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `status ${response.status}`;
      throw tokenError(`the token endpoint refused the service account (${reason})`);
    }
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    const at = now();
    return { token: body.access_token, expiresAt: at + lifetimeMs, refreshAt: at + Math.max(0, lifetimeMs - REFRESH_MARGIN_MS) };
  }

  function refresh(): Promise<Minted> {
    pending ??= mint()
      .then((minted) => (current = minted))
      .finally(() => (pending = undefined));
    return pending;
  }

  return {
    async token() {
      const cached = current;
      if (cached && now() < cached.refreshAt) return cached.token;
      try {
        return (await refresh()).token;
      } catch (error) {
        if (cached && now() < cached.expiresAt) return cached.token;
        throw error;
      }
    },
  };
}
