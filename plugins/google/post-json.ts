import { readOkJson, type HttpClient } from 'gateway/plugin-kit';

/** What a call to one of Google's JSON methods needs: the provider's client and its credential. */
export interface GoogleCaller {
  client: HttpClient;
  /** The API key header (AI Studio) or a fresh bearer token (Vertex). */
  authorize: () => Promise<Record<string, string>>;
  /** The provider's configured headers (every call to the provider's host sends them). */
  headers?: Record<string, string>;
}

/** POSTs a JSON body to one of Google's methods and reads its JSON answer (a non-2xx is an UpstreamHttpError). */
export async function postJson(caller: GoogleCaller, path: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...caller.headers, ...(await caller.authorize()) };
  return readOkJson(await caller.client.request({ method: 'POST', path, headers, body: JSON.stringify(body), signal }));
}

/** A JSON object, or undefined. */
export const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** A non-empty string, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
