import { formValue, readOk, readOkJson, type HttpClient, type JobPhase, type JobsCapability, type JobStatus } from 'gateway/plugin-kit';

/** What the video calls need from the plugin's setup. */
export interface OpenAIVideoContext {
  client: HttpClient;
  /** Auth and organization headers, without a content type. */
  headers: Record<string, string>;
}

/** OpenAI's video states (and OpenRouter's two more) onto the plugin kit's phases. */
const PHASES: Record<string, JobPhase> = {
  queued: 'queued',
  in_progress: 'running',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
};

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `WxH` as numbers, when it is one. */
function sizeOf(size: unknown): { width?: number; height?: number } {
  const m = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : {};
}

/**
 * Upstreams that serve OpenAI's `/v1/videos` shape (OpenAI, LiteLLM, Bifrost and other
 * compatible servers): `POST /videos` (multipart, so `input_reference` goes up as a file),
 * `GET /videos/{id}` polled, `GET /videos/{id}/content?variant=` with the provider's key, and
 * `DELETE /videos/{id}` to stop a job (the shape has no cancel).
 */
export function openaiVideos(ctx: OpenAIVideoContext): JobsCapability {
  const json = { ...ctx.headers, accept: 'application/json' };
  const path = (id: string) => `/videos/${encodeURIComponent(id)}`;
  return {
    mediaTypes: ['video'],
    async submit(call) {
      const form = new FormData();
      form.append('model', call.model);
      form.append('prompt', call.prompt);
      if (call.seconds !== undefined) form.append('seconds', String(call.seconds));
      if (call.size !== undefined) form.append('size', call.size);
      for (const [key, value] of Object.entries(call.extra)) form.append(key, formValue(value));
      if (call.inputReference) {
        const { data, filename, contentType } = call.inputReference;
        form.append('input_reference', new Blob([data as Uint8Array<ArrayBuffer>], { type: contentType }), filename);
      }
      const created = await readOkJson(await ctx.client.request({ method: 'POST', path: '/videos', headers: json, body: form, signal: call.signal }));
      return { id: String(created.id), state: {} };
    },
    async poll(ref, signal): Promise<JobStatus> {
      const video = await readOkJson(await ctx.client.request({ method: 'GET', path: path(ref.id), headers: json, signal }));
      const phase = PHASES[String(video.status)] ?? 'running';
      const status: JobStatus = { phase, progress: typeof video.progress === 'number' ? video.progress : undefined };
      if (phase === 'failed') {
        const error = video.error as { code?: unknown; message?: unknown } | null | undefined;
        status.error = { code: str(error?.code) ?? 'generation_failed', message: str(error?.message) ?? 'The provider could not make this video.' };
      }
      if (phase === 'completed') {
        const seconds = Number(video.seconds);
        status.output = { contentType: 'video/mp4', seconds: Number.isFinite(seconds) ? seconds : undefined, ...sizeOf(video.size), variants: ['thumbnail', 'spritesheet'] };
      }
      return status;
    },
    async content(ref, variant, signal) {
      const query = variant === 'video' ? '' : `?variant=${encodeURIComponent(variant)}`;
      const { bytes, contentType } = await readOk(await ctx.client.request({ method: 'GET', path: `${path(ref.id)}/content${query}`, headers: { ...ctx.headers, accept: 'application/binary' }, signal }));
      return { data: bytes, contentType: contentType || (variant === 'video' ? 'video/mp4' : 'image/jpeg') };
    },
    async cancel(ref, signal) {
      await readOk(await ctx.client.request({ method: 'DELETE', path: path(ref.id), headers: json, signal }));
    },
  };
}
