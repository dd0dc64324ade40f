import type { JobContent, JobMediaType, JobRef, JobsCapability, JobStatus, ModelSpec } from 'gateway/plugin-kit';
import { encodeTetrahedronGlb } from './glb.ts';
import { CLIP, THUMBNAIL_JPEG, VIDEO_MP4 } from './video-clip.ts';
import { encodeWav } from './wav.ts';

/** The offline job models: a video clip, a music clip and a 3D model, each after a delay. */
export const JOB_MODELS: ModelSpec[] = [
  { id: 'video', type: 'video_generation', pricing: { perSecond: 0.1 }, displayName: 'Mock Video', sizes: ['64x36', '720x1280', '1280x720'] },
  { id: 'music', type: 'music_generation', pricing: { perSecond: 0.002 }, displayName: 'Mock Music' },
  { id: '3d', type: 'threed_generation', pricing: { perJob: 0.05 }, displayName: 'Mock 3D' },
];

/** Fault injection and pacing of mock jobs (plugin options). */
export interface MockJobOptions {
  /** How long a job takes from submit to completed (ms); progress moves linearly meanwhile. */
  jobDelayMs?: number;
  /** Fail the first N jobs this provider runs (at the end of their delay). */
  jobFailFirst?: number;
}

const MUSIC_RATE = 8000;
const MAX_MUSIC_SECONDS = 30;

/** A short tune: a few sine notes, 8 kHz 16-bit mono, the prompt in the WAV comment. */
function tune(seconds: number, prompt: string): Buffer {
  const samples = Math.round(Math.min(MAX_MUSIC_SECONDS, Math.max(0.5, seconds)) * MUSIC_RATE);
  const pcm = Buffer.alloc(samples * 2);
  const notes = [262, 330, 392, 523];
  for (let i = 0; i < samples; i++) {
    const f = notes[Math.floor(i / (MUSIC_RATE / 4)) % notes.length];
    pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * f * i) / MUSIC_RATE) * 8000), i * 2);
  }
  return encodeWav(pcm, MUSIC_RATE, prompt.slice(0, 200));
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * Mock jobs keep everything in the ref's state (when submitted, how long they take, whether
 * they fail), so a gateway restarted mid-job polls them on exactly as before.
 */
export function mockJobs(options: MockJobOptions): JobsCapability {
  const delayMs = options.jobDelayMs ?? 2000;
  let submitted = 0;
  return {
    mediaTypes: ['video', 'music', 'threed'],
    async submit(call) {
      submitted += 1;
      const fail = submitted <= (options.jobFailFirst ?? 0) || call.prompt.includes('[fail]');
      const seconds = call.mediaType === 'threed' ? 0 : call.mediaType === 'video' ? CLIP.seconds : Math.min(MAX_MUSIC_SECONDS, call.seconds ?? 5);
      return { id: `mockjob_${call.jobId}`, state: { mediaType: call.mediaType, submittedAt: Date.now(), delayMs, fail, seconds, prompt: call.prompt.slice(0, 200) } };
    },
    async poll(ref: JobRef): Promise<JobStatus> {
      const s = ref.state;
      const elapsed = Date.now() - num(s.submittedAt, 0);
      const delay = num(s.delayMs, delayMs);
      if (elapsed < delay) return { phase: elapsed < Math.min(delay / 10, 1000) ? 'queued' : 'running', progress: Math.min(99, Math.floor((elapsed / Math.max(1, delay)) * 100)) };
      if (s.fail === true) return { phase: 'failed', error: { code: 'generation_failed', message: 'mock: injected job failure' } };
      const mediaType = s.mediaType as JobMediaType;
      if (mediaType === 'video') return { phase: 'completed', progress: 100, output: { contentType: CLIP.contentType, seconds: CLIP.seconds, width: CLIP.width, height: CLIP.height, bytes: VIDEO_MP4.length, variants: ['thumbnail'] } };
      if (mediaType === 'music') return { phase: 'completed', progress: 100, output: { contentType: 'audio/wav', seconds: num(s.seconds, 5) } };
      return { phase: 'completed', progress: 100, output: { contentType: 'model/gltf-binary' } };
    },
    async content(ref: JobRef, variant: string): Promise<JobContent> {
      const s = ref.state;
      if (s.mediaType === 'video') return variant === 'thumbnail' ? { data: THUMBNAIL_JPEG, contentType: 'image/jpeg' } : { data: VIDEO_MP4, contentType: CLIP.contentType };
      if (s.mediaType === 'music') return { data: tune(num(s.seconds, 5), String(s.prompt ?? '')), contentType: 'audio/wav' };
      return { data: encodeTetrahedronGlb(String(s.prompt ?? 'mock')), contentType: 'model/gltf-binary' };
    },
    async cancel() {
      // Nothing runs upstream: the gateway stops polling and ends the job cancelled.
    },
  };
}
