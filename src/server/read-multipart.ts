import type { H3Event } from 'h3';
import { GatewayError } from '../errors/index.ts';
import { readRawBody } from './read-body.ts';

/** Reads a multipart/form-data body within `limit` bytes (413 beyond it) and parses it. */
export async function readMultipart(event: H3Event, limit: number): Promise<FormData> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new GatewayError('bad_request', 'This endpoint takes a multipart/form-data body (with a boundary).');
  }
  const raw = await readRawBody(event, limit);
  try {
    return await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch (error) {
    throw new GatewayError('bad_request', `The multipart body could not be parsed: ${(error as Error).message.split('\n')[0]}`);
  }
}
