import type { H3Event } from 'h3';
import { GatewayError, validationError } from '../errors/index.ts';
import type { ByteLimit } from './byte-limit.ts';
import { readRawBody } from './read-body.ts';

/** Bounds of any multipart body (docs/limits.md); the fields' own rules come after these. */
export const MULTIPART_LIMITS = { parts: 64, nameChars: 128, textFieldChars: 65_536 } as const;

/** 422 naming the parts over the bounds: too many, a too-long name, a too-long text value. */
function checkParts(form: FormData): void {
  const fields: Record<string, string> = {};
  let parts = 0;
  for (const [name, value] of form.entries()) {
    parts += 1;
    const path = name.length > MULTIPART_LIMITS.nameChars ? `${name.slice(0, 32)}…` : name;
    if (name.length > MULTIPART_LIMITS.nameChars) fields[path] ??= `field names must be at most ${MULTIPART_LIMITS.nameChars} characters`;
    else if (typeof value === 'string' && value.length > MULTIPART_LIMITS.textFieldChars) fields[path] ??= `must be at most ${MULTIPART_LIMITS.textFieldChars} characters`;
  }
  if (parts > MULTIPART_LIMITS.parts) fields.body = `must have at most ${MULTIPART_LIMITS.parts} parts (has ${parts})`;
  if (Object.keys(fields).length > 0) throw validationError(fields);
}

/** Reads a multipart/form-data body within `limit` (413 naming its setting beyond it), parses and bounds it. */
export async function readMultipart(event: H3Event, limit: ByteLimit): Promise<FormData> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new GatewayError('bad_request', 'This endpoint takes a multipart/form-data body (with a boundary).');
  }
  const raw = await readRawBody(event, limit);
  let form: FormData;
  try {
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch (error) {
    throw new GatewayError('bad_request', `The multipart body could not be parsed: ${(error as Error).message.split('\n')[0]}`);
  }
  checkParts(form);
  return form;
}
