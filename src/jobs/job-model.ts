import type { CatalogModel } from '../providers/index.ts';
import type { JobContext } from './job-context.ts';
import type { JobState } from './job-state.ts';

/** The catalog model a job runs on, while its provider is still configured (with jobs). */
export function jobModel(ctx: Pick<JobContext, 'registry'>, job: JobState): CatalogModel | undefined {
  try {
    return ctx.registry.resolve(job.modelId).candidates.find((m) => m.provider.id === job.provider && m.provider.instance.jobs);
  } catch {
    return undefined;
  }
}
