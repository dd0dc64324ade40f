import { z } from 'zod';
import type { MediaRecord, MediaStatus } from '../store/index.ts';

/** A job's status as `/v1/videos` shows it: OpenAI's four plus OpenRouter's `cancelled` and `expired`. */
export const JOB_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type JobStatusName = (typeof JOB_STATUSES)[number];

/** The statuses after which nothing more happens upstream. */
export const FINAL_STATUSES: ReadonlySet<JobStatusName> = new Set(['completed', 'failed', 'cancelled', 'expired']);

const ref = z.object({ id: z.string(), state: z.record(z.string(), z.unknown()) });

/** What the gateway keeps about a job it runs, in the record's job slot (validated when read back). */
export const jobStateSchema = z.object({
  /** `video`: made through /v1/videos (its id is `video_…`); `media`: through the Media Library. */
  door: z.enum(['video', 'media']),
  provider: z.string(),
  /** The catalog model (`provider/model`) and the upstream's id for it. */
  modelId: z.string(),
  upstreamModel: z.string(),
  /** The API key billed (null: a dashboard session, billed to the account). */
  keyId: z.string().nullable(),
  status: z.enum(JOB_STATUSES),
  progress: z.number(),
  ref: ref.nullable(),
  /** Set before the provider is asked: a crash with no `ref` means the submit may or may not have reached it. */
  submitting: z.boolean(),
  seconds: z.number().nullable(),
  size: z.string().nullable(),
  /** Where the gateway's content URLs point (the origin the client used). */
  origin: z.string(),
  billed: z.boolean(),
  cancelRequested: z.boolean(),
  callbackUrl: z.string().nullable(),
  webhook: z.object({ delivered: z.boolean(), attempts: z.number(), nextAt: z.number() }).nullable(),
  /** Content types of the variants the provider serves (the main one is `video`). */
  variants: z.record(z.string(), z.string()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  completedAt: z.number().nullable(),
  /**
   * The seconds the provider said it made (null: it did not say), what the job is charged for:
   * the record's duration_seconds is the client's to PATCH. Absent on jobs ended by older versions.
   */
  madeSeconds: z.number().nullable().optional(),
  /** What the provider said it charged (USD), billed instead of the gateway's price. */
  providerUsd: z.number().nullable().optional(),
  /** When the job gives up waiting (Unix s): it ends `expired`. */
  deadline: z.number(),
});

export type JobState = z.infer<typeof jobStateSchema>;

/** A record the gateway runs a job for, with its state read back. */
export interface JobRecord {
  record: MediaRecord;
  job: JobState;
}

/** The job of a record, or undefined when clients move the record themselves (or its state is unreadable). */
export function readJob(record: MediaRecord): JobState | undefined {
  if (!record.job) return undefined;
  const parsed = jobStateSchema.safeParse(record.job.state);
  return parsed.success ? parsed.data : undefined;
}

/** The library status (spec §3.1 has four) of a job status. */
export function libraryStatus(status: JobStatusName): MediaStatus {
  if (status === 'queued') return 'pending';
  if (status === 'in_progress') return 'processing';
  return status === 'completed' ? 'completed' : 'failed';
}

/** The `/v1/videos` id of a record id, and back (`video_` + the UUID without dashes). */
export function videoIdOf(recordId: string): string {
  return `video_${recordId.replace(/-/g, '')}`;
}

export function recordIdOf(videoId: string): string | undefined {
  const m = /^video_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(videoId);
  return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}` : undefined;
}

/** The request id a job is held and billed under (one ledger line per job). */
export function jobRequestId(recordId: string): string {
  return `mediajob_${recordId}`;
}
