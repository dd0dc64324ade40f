import type { H3Event } from 'h3';
import { GatewayError, validationError } from '../../errors/index.ts';
import type { JobRecord } from '../../jobs/index.ts';
import type { MediaRecord } from '../../store/index.ts';
import { clientAbort } from '../client-signal.ts';
import { requestState } from '../context.ts';

const VARIANTS = ['video', 'thumbnail', 'spritesheet'] as const;

/** Sends a completed job's content (`?variant=`, default the main item); 409 before it is completed. */
export async function sendJobContent(
  event: H3Event,
  { record, job }: JobRecord,
  read: (record: MediaRecord, variant: string, signal: AbortSignal) => Promise<{ data: Buffer; contentType: string }>,
): Promise<Response> {
  const variant = event.url.searchParams.get('variant') ?? 'video';
  if (!(VARIANTS as readonly string[]).includes(variant)) throw validationError({ variant: `must be one of: ${VARIANTS.join(', ')}` });
  if (job.status !== 'completed') throw new GatewayError('conflict', `The generation is ${job.status}; its content is there once it is completed.`);
  const { data, contentType } = await read(record, variant, clientAbort(event).signal);
  const headers = new Headers(event.res.headers);
  headers.set('content-type', contentType);
  headers.set('content-length', String(data.length));
  headers.set('cache-control', 'private, max-age=3600');
  headers.set('x-request-id', requestState(event).ids.requestId);
  return new Response(data as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
