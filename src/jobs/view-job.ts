import { MEDIA_RETENTION_SECONDS } from '../media/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { defaultSeconds } from './submit-job.ts';
import { videoIdOf, type JobState } from './job-state.ts';

/** OpenAI's video object, plus `polling_url` (OpenRouter) and `usage.cost` once billed. */
export interface VideoView {
  id: string;
  object: 'video';
  status: JobState['status'];
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number;
  model: string;
  prompt: string | null;
  seconds: string;
  size: string;
  error: { code: string; message: string } | null;
  remixed_from_video_id: null;
  polling_url: string;
  usage?: { cost: number };
}

/** The video object of a job record. */
export function viewVideo(record: MediaRecord, job: JobState): VideoView {
  const id = videoIdOf(record.id);
  const view: VideoView = {
    id,
    object: 'video',
    status: job.status,
    progress: job.progress,
    created_at: record.created_at,
    completed_at: job.completedAt,
    expires_at: record.created_at + MEDIA_RETENTION_SECONDS,
    model: job.upstreamModel,
    prompt: record.prompt,
    seconds: String(record.duration_seconds ?? job.seconds ?? defaultSeconds('video')),
    size: job.size ?? (record.width && record.height ? `${record.width}x${record.height}` : '720x1280'),
    error: job.error,
    remixed_from_video_id: null,
    polling_url: `${job.origin}/v1/videos/${id}`,
  };
  if (job.billed && record.cost_credits !== null) view.usage = { cost: record.cost_credits };
  return view;
}

/** Where the gateway serves a job's content to its owner (session or API key): the record's `primary_url`. */
export function contentUrl(record: MediaRecord, job: JobState, variant?: string): string {
  const base = `${job.origin}/v1/media/generations/${record.id}/content`;
  return variant ? `${base}?variant=${variant}` : base;
}
