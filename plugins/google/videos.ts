import { GatewayError, readOk, readOkJson, type HttpClientFactory, type JobContent, type JobRef, type JobsCapability, type JobStatus, type JobSubmitCall } from 'gateway/plugin-kit';
import type { GooglePaths } from './endpoints.ts';
import { postJson, record, str, type GoogleCaller } from './post-json.ts';

/**
 * What the Veo calls need from the plugin's setup. The caller's headers (the provider's
 * configured ones) go on every call to the provider's host, not to a redirect's or Cloud Storage.
 */
export interface GoogleVideoContext extends GoogleCaller {
  providerId: string;
  vertex: boolean;
  /** Pooled clients for other origins (a download's redirect, Cloud Storage). */
  http: HttpClientFactory;
  paths: GooglePaths;
  /** Where a Vertex result's `gs://` URI is read (Cloud Storage's JSON API; a test double's baseURL). */
  storageOrigin: string;
}

/** A client's `WxH` as Veo's aspect ratio and resolution. */
const SIZES: Record<string, { aspectRatio: string; resolution: string }> = {
  '1280x720': { aspectRatio: '16:9', resolution: '720p' },
  '720x1280': { aspectRatio: '9:16', resolution: '720p' },
  '1920x1080': { aspectRatio: '16:9', resolution: '1080p' },
  '1080x1920': { aspectRatio: '9:16', resolution: '1080p' },
};

/**
 * The length asked for when the client names none: OpenAI's videos API default (4 s, what the
 * gateway holds credits for), or Veo 2's shortest (5 s; it makes 5–8). Veo's own default is 8 s.
 */
function defaultSeconds(model: string): number {
  return model.startsWith('veo-2') ? 5 : 4;
}

/** Fields the gateway decides: one clip per job (it bills and stores one), the length and size from the call. */
const OWN_PARAMETERS = new Set(['sampleCount', 'numberOfVideos', 'durationSeconds']);


/** `predictLongRunning`'s body: the prompt (and a first-frame image) as the one instance, the rest as parameters. */
export function veoRequestBody(call: JobSubmitCall): Record<string, unknown> {
  const instance: Record<string, unknown> = { prompt: call.prompt };
  if (call.inputReference) instance.image = { bytesBase64Encoded: Buffer.from(call.inputReference.data).toString('base64'), mimeType: call.inputReference.contentType };
  const parameters: Record<string, unknown> = { sampleCount: 1, durationSeconds: call.seconds ?? defaultSeconds(call.model) };
  const size = call.size === undefined ? undefined : SIZES[call.size];
  if (call.size !== undefined && !size) {
    throw new GatewayError('bad_request', `Veo makes ${Object.keys(SIZES).join(', ')} videos; size '${call.size}' is not one of them.`, { details: { param: 'size' } });
  }
  if (size) Object.assign(parameters, size);
  // Veo's own parameters (negativePrompt, personGeneration, aspectRatio, resolution, seed, generateAudio…) go up as given.
  for (const [key, value] of Object.entries(call.extra)) if (!OWN_PARAMETERS.has(key)) parameters[key] = value;
  return { instances: [instance], parameters };
}

/** Width and height of a finished clip, as far as the asked size or Veo's parameters tell. */
function dimensions(state: Record<string, unknown>): { width?: number; height?: number } {
  const m = typeof state.size === 'string' ? /^(\d+)x(\d+)$/.exec(state.size) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : {};
}

/** Where a finished operation's first clip is: a download URI (AI Studio, Vertex with storageUri) or inline bytes. */
type Clip = { uri: string; mimeType?: string } | { bytes: string; mimeType?: string };

/** The first clip of a finished operation, or why there is none. */
function clipOf(response: Record<string, unknown> | undefined): Clip | { filtered: string } {
  // AI Studio: response.generateVideoResponse.generatedSamples[].video.{uri, encodedVideo, encoding}; Vertex: response.videos[].{gcsUri, bytesBase64Encoded, mimeType}.
  const studio = record(response?.generateVideoResponse);
  const body = studio ?? response;
  const first = record((Array.isArray(body?.generatedSamples) ? body.generatedSamples : Array.isArray(body?.videos) ? body.videos : [])[0]);
  const video = studio ? record(first?.video) : first;
  const uri = str(video?.uri) ?? str(video?.gcsUri);
  const bytes = str(video?.encodedVideo) ?? str(video?.bytesBase64Encoded);
  const mimeType = str(video?.encoding) ?? str(video?.mimeType);
  if (uri) return { uri, mimeType };
  if (bytes) return { bytes, mimeType };
  const reasons = Array.isArray(body?.raiMediaFilteredReasons) ? body.raiMediaFilteredReasons.filter((r): r is string => typeof r === 'string') : [];
  return { filtered: reasons.length > 0 ? reasons.join(' ') : 'The provider returned no video (its safety filters may have removed it).' };
}

/** A Google RPC status (`{code, message, status}`) as a job error. */
function operationError(error: Record<string, unknown>): { code: string; message: string } {
  const status = str(error.status);
  return { code: status ? status.toLowerCase() : 'generation_failed', message: str(error.message) ?? 'The provider could not make this video.' };
}

/**
 * Veo through Google's long-running operations: AI Studio (`models/{m}:predictLongRunning`,
 * polled with `GET /v1beta/{operation}`, the clip downloaded from its file URI with the API key)
 * and Vertex AI (`publishers/google/models/{m}:predictLongRunning`, polled with
 * `:fetchPredictOperation`, the clip inline in the operation or in Cloud Storage). A job's
 * ref is the operation name; its state keeps the model, length and size asked for.
 */
export function googleVideos(ctx: GoogleVideoContext): JobsCapability {
  const post = (path: string, body: unknown, signal: AbortSignal) => postJson(ctx, path, body, signal);

  async function operation(ref: JobRef, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (ctx.vertex) return post(ctx.paths.veoOperation(String(ref.state.model)), { operationName: ref.id }, signal);
    const headers = { accept: 'application/json', ...ctx.headers, ...(await ctx.authorize()) };
    return readOkJson(await ctx.client.request({ method: 'GET', path: ctx.paths.veoOperation(String(ref.state.model), ref.id), headers, signal }));
  }

  /** GET of a download URI: through the provider's own client (with its key) when it is the provider's host, a redirect's target without it. */
  async function download(uri: string, signal: AbortSignal): Promise<{ bytes: Buffer; contentType: string }> {
    const url = new URL(uri);
    const own = { ...ctx.headers, ...(await ctx.authorize()) };
    let response = await ctx.client.request({ method: 'GET', path: `${url.pathname}${url.search}`, headers: own, signal });
    for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 3; hops += 1) {
      const location = response.headers.location;
      const next = typeof location === 'string' ? new URL(location, url) : undefined;
      await readOk(response).catch(() => undefined);
      if (!next || (next.protocol !== 'https:' && next.protocol !== 'http:')) break;
      // A signed storage URL: it needs no key, and the key must not go to another host.
      response = await ctx.http.client(next.origin).request({ method: 'GET', path: `${next.pathname}${next.search}`, headers: {}, signal });
    }
    return readOk(response);
  }

  /** A `gs://bucket/object` through Cloud Storage's JSON API, with the Vertex token. */
  async function readStorage(uri: string, signal: AbortSignal): Promise<{ bytes: Buffer; contentType: string }> {
    const m = /^gs:\/\/([^/]+)\/(.+)$/.exec(uri);
    if (!m) throw new GatewayError('provider_error', `The provider '${ctx.providerId}' named a video at '${uri}', which the gateway cannot read.`);
    const path = `/download/storage/v1/b/${encodeURIComponent(m[1])}/o/${encodeURIComponent(m[2])}?alt=media`;
    return readOk(await ctx.http.client(ctx.storageOrigin).request({ method: 'GET', path, headers: await ctx.authorize(), signal }));
  }

  return {
    mediaTypes: ['video'],
    defaultSeconds,
    async submit(call) {
      const created = await post(ctx.paths.veoSubmit(call.model), veoRequestBody(call), call.signal);
      const name = str(created.name);
      if (!name) throw new GatewayError('provider_error', `The provider '${ctx.providerId}' started no operation for this video.`);
      const state: Record<string, unknown> = { model: call.model, seconds: call.seconds ?? defaultSeconds(call.model) };
      if (call.size !== undefined) state.size = call.size;
      return { id: name, state };
    },
    async poll(ref, signal): Promise<JobStatus> {
      const op = await operation(ref, signal);
      if (op.done !== true) return { phase: 'running' };
      const error = record(op.error);
      if (error) return { phase: 'failed', error: operationError(error) };
      const clip = clipOf(record(op.response));
      if ('filtered' in clip) return { phase: 'failed', error: { code: 'content_filter', message: clip.filtered } };
      const seconds = Number(ref.state.seconds);
      return {
        phase: 'completed',
        progress: 100,
        output: { contentType: clip.mimeType ?? 'video/mp4', seconds: Number.isFinite(seconds) ? seconds : undefined, ...dimensions(ref.state) },
        // Where the clip is; inline bytes stay with the operation (read again for the content), never in the job's record.
        state: { ...ref.state, uri: 'uri' in clip ? clip.uri : undefined },
      };
    },
    async content(ref, variant, signal): Promise<JobContent> {
      if (variant !== 'video') throw new GatewayError('bad_request', `Veo videos have no '${variant}' variant.`, { details: { param: 'variant' } });
      let uri = str(ref.state.uri);
      let inline: Clip | undefined;
      if (!uri) {
        const clip = clipOf(record((await operation(ref, signal)).response));
        if ('filtered' in clip) throw new GatewayError('provider_error', clip.filtered);
        if ('uri' in clip) uri = clip.uri;
        else inline = clip;
      }
      if (inline && 'bytes' in inline) return { data: Buffer.from(inline.bytes, 'base64'), contentType: inline.mimeType ?? 'video/mp4' };
      const { bytes, contentType } = uri!.startsWith('gs://') ? await readStorage(uri!, signal) : await download(uri!, signal);
      return { data: bytes, contentType: contentType && contentType !== 'application/octet-stream' ? contentType : 'video/mp4' };
    },
  };
}
