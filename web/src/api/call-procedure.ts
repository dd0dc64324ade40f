import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AccountRouter } from '../../../src/admin/account-router.ts';
import type { AdminRouter } from '../../../src/admin/router.ts';

export type AccountInputs = inferRouterInputs<AccountRouter>;
export type AccountOutputs = inferRouterOutputs<AccountRouter>;
export type AdminInputs = inferRouterInputs<AdminRouter>;
export type AdminOutputs = inferRouterOutputs<AdminRouter>;

/** A failed call: the gateway's error envelope or a tRPC error, as one message and status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Reads a failed response: the spec's envelope (`error.code`), tRPC's (`error.message`), or the status. */
export async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: string | number; message?: string; retry_after?: number; data?: { gatewayCode?: string } } };
    const e = body.error;
    const code = typeof e?.code === 'string' ? e.code : e?.data?.gatewayCode;
    return new ApiError(e?.message ?? `${response.status} ${response.statusText}`, response.status, code, e?.retry_after ?? (Number(response.headers.get('retry-after')) || undefined));
  } catch {
    return new ApiError(`${response.status} ${response.statusText}`, response.status, undefined);
  }
}

/** Calls a procedure over tRPC's HTTP wire (no batching, no transformer): GET for queries, POST for mutations. */
export async function callProcedure<T>(base: string, path: string, kind: 'query' | 'mutation', input: unknown, token: string | undefined): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const url = `${base}/${path}`;
  const response =
    kind === 'query'
      ? await fetch(input === undefined ? url : `${url}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(input ?? null) });
  if (!response.ok) throw await errorOf(response);
  const body = (await response.json()) as { result?: { data?: T } };
  return body.result?.data as T;
}
