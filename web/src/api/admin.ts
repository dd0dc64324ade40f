import { callProcedure, type AdminInputs, type AdminOutputs } from './call-procedure.ts';

const TOKEN_KEY = 'gateway.admin';

/**
 * The operator's admin token (`gwa_…`, from `gateway dashboard` or `server.json`). It arrives
 * in the URL's fragment, which browsers never send to a server, and is kept for this tab only.
 */
export function adminToken(): string | undefined {
  const fromHash = /(?:^#|&)admin=(gwa_[A-Za-z0-9_-]+)/.exec(location.hash)?.[1];
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function setAdminToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function adminQuery<K extends keyof AdminOutputs>(path: K, input?: unknown): Promise<AdminOutputs[K]> {
  return callProcedure('/admin/trpc', path, 'query', input, adminToken());
}

export function adminCall<T>(path: string, kind: 'query' | 'mutation', input?: unknown): Promise<T> {
  return callProcedure<T>('/admin/trpc', path, kind, input, adminToken());
}

export type { AdminInputs, AdminOutputs };
