import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import { generateSessionToken, hashPassword, newId, sha256, verifyPassword } from '../util/index.ts';

/** How long a dashboard session lasts (spec: not shown; ours). */
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** A new dashboard session: the token is returned once and stored only as a hash. */
export interface IssuedSession {
  token: string;
  /** Unix seconds. */
  expiresAt: number;
}

let decoyHash: Promise<string> | undefined;

/** A hash to verify against when the email is unknown, so timing does not reveal which emails exist. */
function decoy(): Promise<string> {
  return (decoyHash ??= hashPassword('decoy-password-never-matches'));
}

function wrongCredentials(): GatewayError {
  return new GatewayError('authentication_error', 'Wrong email or password.');
}

/** Checks email and password (scrypt) and opens a session; 401 on any mismatch, 403 when suspended. */
export async function login(store: Store, clock: Clock, email: string, password: string, ttlMs = SESSION_TTL_MS): Promise<IssuedSession> {
  const account = await store.accounts.findByEmail(email);
  const stored = account?.passwordHash ?? (await decoy());
  const ok = await verifyPassword(password, stored);
  if (!account || !account.passwordHash || !ok) throw wrongCredentials();
  if (account.suspended) throw new GatewayError('account_suspended', 'The account is suspended.');
  const now = clock.now();
  const token = generateSessionToken();
  const expiresAt = now + ttlMs;
  await store.sessions.create({ id: newId('sess'), accountId: account.id, hash: sha256(token), createdAt: now, expiresAt });
  // Expired sessions would otherwise pile up; the purge is cheap next to a scrypt verify.
  void store.sessions.purgeExpired(now).catch(() => undefined);
  return { token, expiresAt: Math.floor(expiresAt / 1000) };
}

/** Ends the session of `token`; true when one was open. */
export async function logout(store: Store, token: string): Promise<boolean> {
  const session = await store.sessions.findByHash(sha256(token));
  if (!session) return false;
  return store.sessions.delete(session.id);
}
