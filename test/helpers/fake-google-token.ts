/**
 * A fake Google OAuth2 token endpoint (the service-account JWT bearer grant of
 * developers.google.com/identity/protocols/oauth2/service-account): it verifies the RS256
 * assertion with the key's public half (node:crypto, not the library under test), its issuer,
 * audience, scope and lifetime, and issues short opaque tokens that the Vertex fake checks.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface FakeTokenEndpoint extends FakeUpstream {
  /** The key file's `token_uri` (this fake's `/token`). */
  tokenUri: string;
  /** Token requests answered 200 (a test counts mints). */
  issued: string[];
  /** Refusals, with their reasons. */
  refusals: string[];
  /** Whether a bearer token was issued here and has not expired. */
  accepts(token: string): boolean;
  /** The lifetime (seconds) of tokens issued from now on. */
  setExpiresIn(seconds: number): void;
}

export interface ServiceAccountKey {
  /** The key file as Google writes it, `token_uri` pointing at the fake. */
  json: Record<string, string>;
  /** The key file written to `dir` (mode 0600). */
  file: string;
  publicKey: crypto.KeyObject;
}

/** A fresh RSA key pair and its service-account key file for `tokenUri`. */
export function createServiceAccountKey(dir: string, tokenUri: string, projectId = 'gw-test-project'): ServiceAccountKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: crypto.randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `gateway@${projectId}.iam.gserviceaccount.com`,
    client_id: '109876543210987654321',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    universe_domain: 'googleapis.com',
  };
  const file = path.join(dir, 'service-account.json');
  fs.writeFileSync(file, JSON.stringify(json, null, 2), { mode: 0o600 });
  return { json, file, publicKey };
}

function oauthError(error: string, description: string): FakeReply {
  return { status: 400, json: { error, error_description: description } };
}

function b64json(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Starts the token endpoint; `key()` gives the public key and the client email to verify against. */
export async function startFakeTokenEndpoint(key: () => { publicKey: crypto.KeyObject; clientEmail: string }, options: { expiresIn?: number } = {}): Promise<FakeTokenEndpoint> {
  const issued: string[] = [];
  const refusals: string[] = [];
  const valid = new Map<string, number>();
  let expiresIn = options.expiresIn ?? 3599;
  let tokenUri = '';
  const refuse = (error: string, description: string): FakeReply => {
    refusals.push(description);
    return oauthError(error, description);
  };
  const handle = (request: ReceivedRequest): FakeReply => {
    if (request.method !== 'POST' || request.path !== '/token') return { status: 404, json: { error: 'not_found' } };
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return refuse('invalid_request', 'content-type must be application/x-www-form-urlencoded');
    const form = new URLSearchParams(request.body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('unsupported_grant_type', 'Invalid grant_type: ' + form.get('grant_type'));
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return refuse('invalid_grant', 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    const { publicKey, clientEmail } = key();
    const signed = crypto.verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2], 'base64url'));
    if (!signed) return refuse('invalid_grant', 'Invalid JWT Signature.');
    const header = b64json(parts[0]);
    const claims = b64json(parts[1]);
    if (header.alg !== 'RS256') return refuse('invalid_grant', `Invalid JWT: alg ${String(header.alg)}`);
    if (claims.iss !== clientEmail) return refuse('invalid_grant', 'Invalid JWT: iss is not the service account');
    if (claims.aud !== tokenUri) return refuse('invalid_grant', `Invalid JWT: aud must be ${tokenUri}`);
    if (!String(claims.scope ?? '').split(' ').includes(CLOUD_PLATFORM_SCOPE)) return refuse('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!(Math.abs(iat - now) < 300 && exp > now && exp - iat <= 3600)) return refuse('invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    const token = `ya29.fake-${crypto.randomBytes(12).toString('base64url')}`;
    valid.set(token, Date.now() + expiresIn * 1000);
    issued.push(token);
    return { json: { access_token: token, expires_in: expiresIn, token_type: 'Bearer' } };
  };
  const base = await startFakeUpstream(handle);
  tokenUri = `${base.url}/token`;
  return Object.assign(base, {
    tokenUri,
    issued,
    refusals,
    accepts: (token: string) => (valid.get(token) ?? 0) > Date.now(),
    setExpiresIn: (seconds: number) => void (expiresIn = seconds),
  });
}
