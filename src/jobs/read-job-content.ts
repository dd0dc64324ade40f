import { GatewayError } from '../errors/index.ts';
import { mapMediaError } from '../media/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { jobModel } from './job-model.ts';
import type { JobContext } from './job-context.ts';
import { readJob, type JobState } from './job-state.ts';
import type { FetchedContent } from './content-cache.ts';

/**
 * A job's content (`variant`: `video`, the main item whatever the media type, or one the provider
 * listed, e.g. `thumbnail`): from the content cache, else fetched from the provider with its own
 * key and kept; downloads that ask at once share one fetch (ContentCache.read). The caller has
 * checked that the record is the asker's.
 */
export async function readJobContent(ctx: JobContext, record: MediaRecord, variant: string, signal: AbortSignal): Promise<FetchedContent> {
  const job = readJob(record);
  const contentType = job?.variants[variant];
  if (!job || !contentType) throw new GatewayError('not_found', `This generation has no '${variant}' content.`, { details: { variant } });
  return ctx.cache.read(record.id, variant, contentType, (shared) => fetchContent(ctx, record, job, variant, contentType, shared), signal);
}

/** The content from the provider, kept in the cache when it fits. */
async function fetchContent(ctx: JobContext, record: MediaRecord, job: JobState, variant: string, contentType: string, signal: AbortSignal): Promise<FetchedContent> {
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
