import { ApiError, callProcedure, errorOf, type AccountInputs, type AccountOutputs } from './call-procedure.ts';

const TOKEN_KEY = 'gateway.session';
const EXPIRES_KEY = 'gateway.sessionExpiresAt';

type Listener = () => void;
const listeners = new Set<Listener>();
let expired = false;

/** The signed-in session's token (kept across reloads; a strict CSP keeps other scripts away from it). */
export function sessionToken(): string | undefined {
  return localStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function isExpired(): boolean {
  return expired;
}

/** Re-renders whoever listens when the session starts, ends or expires. */
export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(): void {
  for (const listener of listeners) listener();
}

/** POST /api/auth/login; 429 (5 a minute) comes back as an ApiError with retryAfter. */
export async function signIn(email: string, password: string): Promise<void> {
  const response = await fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!response.ok) throw await errorOf(response);
  const { token, expires_at } = (await response.json()) as { token: string; expires_at: number };
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(EXPIRES_KEY, String(expires_at));
  expired = false;
  scheduleExpiry();
  changed();
}

let expiryTimer: ReturnType<typeof setTimeout> | undefined;

/** At the session's end the sign-in form comes up by itself, before a call fails with 401. */
export function scheduleExpiry(): void {
  clearTimeout(expiryTimer);
  // expires_at is in whole seconds, rounded down: one more second is surely past the server's end.
  const at = (Number(localStorage.getItem(EXPIRES_KEY)) + 1) * 1000;
  if (!sessionToken() || !Number.isFinite(at) || at <= 0) return;
  // setTimeout holds at most ~24.8 days; a longer session is checked again then.
  const wait = Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1);
  expiryTimer = setTimeout(() => {
    if (Date.now() < at) return scheduleExpiry();
    if (!expired && sessionToken()) {
      expired = true;
      changed();
    }
  }, wait);
}

export async function signOut(): Promise<void> {
  const token = sessionToken();
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(EXPIRES_KEY);
  clearTimeout(expiryTimer);
  expired = false;
  changed();
  if (token) await fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
}

/**
 * A 401 on any session call: the session ended (expired, signed out elsewhere, password changed).
 * Only for the token still in use: an old call answered after a new sign-in says nothing.
 */
function noteFailure(error: unknown, token: string | undefined): never {
  if (error instanceof ApiError && error.status === 401 && !expired && token === sessionToken()) {
    expired = true;
    changed();
  }
  throw error;
}

/** A fetch with the session token; a 401 shows the sign-in form over the page (nothing typed is lost). */
export async function sessionFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = sessionToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(url, { ...init, headers });
  if (response.status === 401) noteFailure(await errorOf(response), token);
  return response;
}

/** A query of the dashboard's procedures (`/api/trpc`). */
export function query<P extends QueryPath>(path: P, input?: InputOf<P>): Promise<OutputOf<P>> {
  const token = sessionToken();
  return callProcedure<OutputOf<P>>('/api/trpc', path, 'query', input, token).catch((e: unknown) => noteFailure(e, token));
}

/** A mutation of the dashboard's procedures. */
export function mutate<P extends QueryPath>(path: P, input?: InputOf<P>): Promise<OutputOf<P>> {
  const token = sessionToken();
  return callProcedure<OutputOf<P>>('/api/trpc', path, 'mutation', input, token).catch((e: unknown) => noteFailure(e, token));
}

type Flatten<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends { [key: string]: unknown } & object
    ? K extends 'keys' | 'usage' | 'models' | 'batches'
      ? Flatten<T[K], `${Prefix}${K}.`>
      : { [P in `${Prefix}${K}`]: T[K] }
    : { [P in `${Prefix}${K}`]: T[K] };
}[keyof T & string];

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type FlatOutputs = UnionToIntersection<Flatten<AccountOutputs>>;
type FlatInputs = UnionToIntersection<Flatten<AccountInputs>>;
export type QueryPath = keyof FlatOutputs & string;
export type OutputOf<P extends QueryPath> = FlatOutputs[P];
export type InputOf<P extends QueryPath> = P extends keyof FlatInputs ? FlatInputs[P] : never;
