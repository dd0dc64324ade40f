/** Media jobs: video, music and 3D generations the gateway submits, polls, bills and delivers (docs/media.md#jobs). */
export { JobRunner } from './job-runner.ts';
export { submitJob, jobModelFor, defaultSeconds, type JobSubmission } from './submit-job.ts';
export { readJobContent } from './read-job-content.ts';
export { updateJob, dashboardKey, type JobContext, type JobDeps, type JobChange, type JobRecords } from './job-context.ts';
export { viewVideo, contentUrl, type VideoView } from './view-job.ts';
export { readJob, videoIdOf, recordIdOf, jobRequestId, libraryStatus, JOB_STATUSES, FINAL_STATUSES, type JobState, type JobStatusName, type JobRecord } from './job-state.ts';
export { accountWebhookSecret, readMasterSecret, signWebhook } from './sign-webhook.ts';
export { ContentCache, type FetchedContent } from './content-cache.ts';
export { decodeVideoRequest, decodeLibraryJob, JOB_LIMITS, type JobRequest } from './decode-job-request.ts';
export { ownJob, ownVideo, listVideos, requestCancel, deleteJob, refuseUnstoppable } from './job-api.ts';
