import { ApiError, callProcedure, errorOf, type AccountInputs, type AccountOutputs } from './call-procedure.ts';

const TOKEN_KEY = 'gateway.session';

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
  const { token } = (await response.json()) as { token: string };
  localStorage.setItem(TOKEN_KEY, token);
  expired = false;
  changed();
}

export async function signOut(): Promise<void> {
  const token = sessionToken();
  localStorage.removeItem(TOKEN_KEY);
  expired = false;
  changed();
  if (token) await fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
}

/** A 401 on any session call: the session ended (expired, signed out elsewhere, password changed). */
function noteFailure(error: unknown): never {
  if (error instanceof ApiError && error.status === 401 && !expired) {
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
  if (response.status === 401) noteFailure(await errorOf(response));
  return response;
}

/** A query of the dashboard's procedures (`/api/trpc`). */
export function query<P extends QueryPath>(path: P, input?: InputOf<P>): Promise<OutputOf<P>> {
  return callProcedure<OutputOf<P>>('/api/trpc', path, 'query', input, sessionToken()).catch(noteFailure);
}

/** A mutation of the dashboard's procedures. */
export function mutate<P extends QueryPath>(path: P, input?: InputOf<P>): Promise<OutputOf<P>> {
  return callProcedure<OutputOf<P>>('/api/trpc', path, 'mutation', input, sessionToken()).catch(noteFailure);
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
