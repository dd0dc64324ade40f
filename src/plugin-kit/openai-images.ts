import type {
  GeneratedImage, HttpClient, HttpClientFactory, ImageEditCall, ImageGenerationCall, ImageResult, ProviderInstance,
} from './types.ts';
import { formValue, readOk, readOkJson } from './read-upstream.ts';

/** What the image calls need from the plugin's setup. */
export interface OpenAIMediaContext {
  client: HttpClient;
  http: HttpClientFactory;
  /** Auth and organization headers, without a content type. */
  headers: Record<string, string>;
  /**
   * The request path of an OpenAI endpoint (`/images/generations`, `/audio/speech`, …) for an
   * upstream model, when it is not that endpoint itself (Azure's `/deployments/{name}/…?api-version=…`).
   */
  path?: (endpoint: string, model: string) => string;
}

/** Where an OpenAI endpoint is on this upstream, for a model. */
export function mediaPath(ctx: Pick<OpenAIMediaContext, 'path'>, endpoint: string, model: string): string {
  return ctx.path ? ctx.path(endpoint, model) : endpoint;
}

/** GPT-image models always answer with b64_json and reject the response_format parameter (judged by the catalog id: an Azure deployment may be named anything). */
function acceptsResponseFormat(call: Pick<ImageGenerationCall, 'model' | 'modelId'>): boolean {
  return !/^gpt-image/i.test(call.modelId ?? call.model);
}

/** The image type from its first bytes (upstreams do not always say). */
export function sniffImageType(bytes: Uint8Array, fallback = 'image/png'): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'RIFF' && Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WEBP') return 'image/webp';
  if (Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'GIF8') return 'image/gif';
  return fallback;
}

/** Downloads an image an upstream answered with a URL (some compatible servers ignore b64_json). */
async function download(ctx: OpenAIMediaContext, url: string, signal: AbortSignal): Promise<Buffer> {
  const target = new URL(url);
  const client = ctx.http.client(target.origin);
  try {
    const response = await client.request({ method: 'GET', path: target.pathname + target.search, signal });
    return (await readOk(response)).bytes;
  } finally {
    await client.close();
  }
}

/** The OpenAI image response (`{created, data:[{b64_json|url, revised_prompt}], usage}`) as bytes. */
async function toResult(ctx: OpenAIMediaContext, body: Record<string, unknown>, signal: AbortSignal): Promise<ImageResult> {
  const items = Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : [];
  const images: GeneratedImage[] = [];
  for (const item of items) {
    let data: Buffer;
    if (typeof item.b64_json === 'string') data = Buffer.from(item.b64_json, 'base64');
    else if (typeof item.url === 'string') data = await download(ctx, item.url, signal);
    else continue;
    const revisedPrompt = typeof item.revised_prompt === 'string' ? item.revised_prompt : undefined;
    images.push({ data, contentType: sniffImageType(data), revisedPrompt });
  }
  const usage = body.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { images, usage: usage ? { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) } : undefined };
}

/** The generation body: the client's extra fields first, then what the gateway validated. */
function generationBody(call: ImageGenerationCall): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.extra, model: call.model, prompt: call.prompt, n: call.n, size: call.size };
  if (call.quality !== undefined) body.quality = call.quality;
  if (call.style !== undefined) body.style = call.style;
  if (call.seed !== undefined) body.seed = call.seed;
  if (call.negativePrompt !== undefined) body.negative_prompt = call.negativePrompt;
  if (acceptsResponseFormat(call)) body.response_format = 'b64_json';
  return body;
}

/** POST {baseURL}/images/generations and /images/edits, always asking for the bytes back. */
export function openaiImageCalls(ctx: OpenAIMediaContext): NonNullable<ProviderInstance['images']> {
  return {
    async generate(call) {
      const response = await ctx.client.request({
        method: 'POST',
        path: mediaPath(ctx, '/images/generations', call.model),
        headers: { ...ctx.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(generationBody(call)),
        signal: call.signal,
      });
      return toResult(ctx, await readOkJson(response), call.signal);
    },
    async edit(call: ImageEditCall) {
      const form = new FormData();
      const { model: _m, prompt: _p, n: _n, size: _s, response_format: _r, ...rest } = generationBody(call);
      form.append('image', new Blob([call.image.data as Uint8Array<ArrayBuffer>], { type: call.image.contentType }), call.image.filename);
      if (call.mask) form.append('mask', new Blob([call.mask.data as Uint8Array<ArrayBuffer>], { type: call.mask.contentType }), call.mask.filename);
      form.append('model', call.model);
      form.append('prompt', call.prompt);
      form.append('n', String(call.n));
      form.append('size', call.size);
      if (acceptsResponseFormat(call)) form.append('response_format', 'b64_json');
      for (const [key, value] of Object.entries(rest)) if (value !== undefined && value !== null) form.append(key, formValue(value));
      const response = await ctx.client.request({
        method: 'POST',
        path: mediaPath(ctx, '/images/edits', call.model),
        headers: { ...ctx.headers, accept: 'application/json' },
        body: form,
        signal: call.signal,
      });
      return toResult(ctx, await readOkJson(response), call.signal);
    },
  };
}
