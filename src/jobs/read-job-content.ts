import { GatewayError } from '../errors/index.ts';
import { mapMediaError } from '../media/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { jobModel } from './job-model.ts';
import type { JobContext } from './job-context.ts';
import { readJob } from './job-state.ts';

/**
 * A job's content (`variant`: `video`, the main item whatever the media type, or one the provider
 * listed, e.g. `thumbnail`): from the content cache, else fetched from the provider with its own
 * key and kept. The caller has checked that the record is the asker's.
 */
export async function readJobContent(ctx: JobContext, record: MediaRecord, variant: string, signal: AbortSignal): Promise<{ data: Buffer; contentType: string }> {
  const job = readJob(record);
  const contentType = job?.variants[variant];
  if (!job || !contentType) throw new GatewayError('not_found', `This generation has no '${variant}' content.`, { details: { variant } });
  const cached = await ctx.cache.get(record.id, variant);
  if (cached) return { data: cached, contentType };
  const model = jobModel(ctx, job);
  if (!model || !job.ref) throw new GatewayError('provider_unavailable', `The provider '${job.provider}' that made this is no longer configured.`);
  let content;
  try {
    content = await model.provider.instance.jobs!.content(job.ref, variant, signal);
  } catch (thrown) {
    throw mapMediaError(model, thrown, signal);
  }
  if (content.data.length > ctx.config.maxContentBytes) {
    throw new GatewayError('provider_error', `The provider's content is larger than media.jobs.maxContentBytes (${ctx.config.maxContentBytes} bytes).`);
  }
  const data = Buffer.from(content.data.buffer, content.data.byteOffset, content.data.byteLength);
  await ctx.cache.put(record.id, variant, data).catch((error: unknown) => ctx.log.warn('media job: caching content failed', { job: record.id, error: String(error) }));
  return { data, contentType: content.contentType || contentType };
}
