import { readBody, UpstreamHttpError } from '../upstream/index.ts';
import type { UpstreamResponse } from './types.ts';

/** Reads a whole upstream response; a non-2xx status becomes an UpstreamHttpError for the gateway to map. */
export async function readOk(response: UpstreamResponse): Promise<{ bytes: Buffer; contentType: string }> {
  const bytes = await readBody(response.body);
  const type = response.headers['content-type'];
  const contentType = (Array.isArray(type) ? type[0] : type) ?? '';
  if (response.status < 200 || response.status >= 300) {
    let body: unknown = bytes.toString('utf8');
    try {
      body = JSON.parse(body as string);
    } catch {
      // not JSON: keep the text
    }
    throw new UpstreamHttpError(response.status, body, response.headers);
  }
  return { bytes, contentType };
}

/** Reads a 2xx JSON object body; anything else that is 2xx is a provider error. */
export async function readOkJson(response: UpstreamResponse): Promise<Record<string, unknown>> {
  const { bytes } = await readOk(response);
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new UpstreamHttpError(502, { error: { message: 'the provider returned a body that is not a JSON object' } });
}

/** A multipart field value: text as is, anything else as JSON text. */
export function formValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
