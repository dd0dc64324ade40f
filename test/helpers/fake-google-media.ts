/**
 * A strict fake of Google's media models. Imagen: `POST /v1beta/models/{m}:predict`
 * (x-goog-api-key; `instances[0].prompt`, `parameters` with `sampleCount` 1–4, `aspectRatio`…;
 * a prompt with "blocked" gets every image filtered, `raiFilteredReason` in place of its bytes).
 * Veo, behind Google's long-running operations, both faces on one port:
 * - AI Studio: `POST /v1beta/models/{m}:predictLongRunning` (x-goog-api-key), polled with
 *   `GET /v1beta/models/{m}/operations/{id}`; a finished clip is a file URI
 *   (`/v1beta/files/{id}:download?alt=media`, key required) that redirects to a signed URL
 *   which must be fetched without the key.
 * - Vertex AI: `POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:predictLongRunning`
 *   and `:fetchPredictOperation` (`{operationName}`), Bearer token; the clip inline
 *   (`bytesBase64Encoded`) or, with `storageUri`, in Cloud Storage (`/download/storage/v1/b/{b}/o/{o}?alt=media`).
 * Bodies are checked the way Google checks them (unknown fields refused with its 400). A prompt
 * with "fail" ends in an operation error, one with "blocked" in a safety-filtered response; every
 * job is done on its third poll.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The PNG Imagen makes here (a real 1×1 image). */
export const IMAGEN_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export const VEO_MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from('veo clip '), Buffer.alloc(48, 9)]);

export interface VeoJob {
  id: string;
  model: string;
  vertex: boolean;
  instance: Record<string, unknown>;
  parameters: Record<string, unknown>;
  polls: number;
}

export interface FakeGoogleMedia {
  url: string;
  apiKey: string;
  token: string;
  project: string;
  location: string;
  jobs: Map<string, VeoJob>;
  /** Each request as seen: `tag` is its `x-gateway-test-tag` header (a provider's configured `headers`). */
  requests: Array<{ method: string; path: string; key: boolean; bearer: boolean; tag?: string }>;
  /** Requests refused (a body Google would refuse, a wrong credential), with the reason. */
  rejections: string[];
  /** Imagen `:predict` calls, as received. */
  imagenCalls: Array<{ model: string; prompt: string; parameters: Record<string, unknown> }>;
  close(): Promise<void>;
}

const IMAGEN_PARAMETERS = new Set(['sampleCount', 'aspectRatio', 'personGeneration', 'imageSize', 'outputOptions', 'negativePrompt', 'seed', 'addWatermark', 'enhancePrompt', 'safetySetting', 'language']);
const ASPECT_RATIOS = new Set(['1:1', '3:4', '4:3', '9:16', '16:9', '2:3', '3:2']);

const INSTANCE_KEYS = new Set(['prompt', 'image', 'lastFrame', 'referenceImages', 'video']);
const STUDIO_PARAMETERS = new Set(['aspectRatio', 'negativePrompt', 'personGeneration', 'sampleCount', 'durationSeconds', 'resolution', 'enhancePrompt']);
const VERTEX_PARAMETERS = new Set([...STUDIO_PARAMETERS, 'seed', 'generateAudio', 'storageUri', 'compressionQuality', 'fps', 'pubsubTopic']);

type Reply = { status: number; json?: unknown; body?: Buffer; headers?: Record<string, string> };

function googleError(code: number, status: string, message: string): Reply {
  return { status: code, json: { error: { code, message, status } } };
}

export async function startFakeGoogleMedia(): Promise<FakeGoogleMedia> {
  const apiKey = 'veo-upstream-key';
  const token = 'ya29.veo-fake-token';
  const project = 'veo-project';
  const location = 'us-central1';
  const jobs = new Map<string, VeoJob>();
  const requests: FakeGoogleMedia['requests'] = [];
  const rejections: string[] = [];
  const imagenCalls: FakeGoogleMedia['imagenCalls'] = [];
  let next = 0;
  let url = '';

  const refuse = (why: string): Reply => {
    rejections.push(why);
    return googleError(400, 'INVALID_ARGUMENT', why);
  };

  function checkBody(body: unknown, vertex: boolean, model: string): Reply | { instance: Record<string, unknown>; parameters: Record<string, unknown> } {
    if (!body || typeof body !== 'object') return refuse('Invalid JSON payload received.');
    const b = body as Record<string, unknown>;
    for (const key of Object.keys(b)) if (key !== 'instances' && key !== 'parameters') return refuse(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
    if (!Array.isArray(b.instances) || b.instances.length !== 1) return refuse('instances must hold one instance.');
    const instance = b.instances[0] as Record<string, unknown>;
    for (const key of Object.keys(instance)) if (!INSTANCE_KEYS.has(key)) return refuse(`Invalid JSON payload received. Unknown name "${key}" at 'instances[0]': Cannot find field.`);
    if (typeof instance.prompt !== 'string' || instance.prompt === '') return refuse('instances[0].prompt is required.');
    if (instance.image !== undefined) {
      const image = instance.image as Record<string, unknown>;
      if (typeof image.bytesBase64Encoded !== 'string' || typeof image.mimeType !== 'string') return refuse('instances[0].image needs bytesBase64Encoded and mimeType.');
    }
    const parameters = (b.parameters ?? {}) as Record<string, unknown>;
    const allowed = vertex ? VERTEX_PARAMETERS : STUDIO_PARAMETERS;
    for (const key of Object.keys(parameters)) if (!allowed.has(key)) return refuse(`Invalid JSON payload received. Unknown name "${key}" at 'parameters': Cannot find field.`);
    // Veo 2 makes 5–8 s; Veo 3 and 3.1 make 4, 6 or 8 s.
    const lengths = model.startsWith('veo-2') ? [5, 6, 7, 8] : [4, 6, 8];
    if (parameters.durationSeconds !== undefined && !lengths.includes(parameters.durationSeconds as number)) return refuse('The number value for `durationSeconds` is out of bound.');
    if (parameters.sampleCount !== undefined && parameters.sampleCount !== 1) return refuse('sampleCount must be 1 in this fake.');
    return { instance, parameters };
  }

  function operation(job: VeoJob, name: string): unknown {
    job.polls += 1;
    if (job.polls < 3) return job.vertex ? { name, done: false } : { name };
    const prompt = String(job.instance.prompt);
    if (prompt.includes('fail')) return { name, done: true, error: { code: 3, message: 'The prompt could not be turned into a video.', status: 'INVALID_ARGUMENT' } };
    if (prompt.includes('blocked')) {
      const filtered = { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['The video could not be made because it may violate the usage guidelines.'] };
      return job.vertex
        ? { name, done: true, response: { '@type': 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse', ...filtered } }
        : { name, done: true, response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: filtered } };
    }
    if (job.vertex) {
      const storage = typeof job.parameters.storageUri === 'string' ? `${job.parameters.storageUri.replace(/\/+$/, '')}/${job.id}/sample_0.mp4` : undefined;
      const video = storage ? { gcsUri: storage, mimeType: 'video/mp4' } : { bytesBase64Encoded: VEO_MP4.toString('base64'), mimeType: 'video/mp4' };
      return { name, done: true, response: { '@type': 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse', raiMediaFilteredCount: 0, videos: [video] } };
    }
    return {
      name,
      done: true,
      response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: { generatedSamples: [{ video: { uri: `${url}/v1beta/files/${job.id}:download?alt=media` } }] } },
    };
  }

  function handle(method: string, path: string, headers: http.IncomingHttpHeaders, body: unknown): Reply {
    const key = headers['x-goog-api-key'] === apiKey;
    const bearer = headers.authorization === `Bearer ${token}`;
    const tag = typeof headers['x-gateway-test-tag'] === 'string' ? headers['x-gateway-test-tag'] : undefined;
    requests.push({ method, path, key, bearer, ...(tag === undefined ? {} : { tag }) });
    let m: RegExpExecArray | null;
    // Imagen (AI Studio)
    if ((m = /^\/v1beta\/models\/(imagen-[^/:]+):predict$/.exec(path)) && method === 'POST') {
      if (!key) return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      const b = (body ?? {}) as Record<string, any>;
      for (const k of Object.keys(b)) if (k !== 'instances' && k !== 'parameters') return refuse(`Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
      if (!Array.isArray(b.instances) || b.instances.length !== 1 || typeof b.instances[0]?.prompt !== 'string') return refuse('instances[0].prompt is required.');
      const parameters = (b.parameters ?? {}) as Record<string, unknown>;
      for (const k of Object.keys(parameters)) if (!IMAGEN_PARAMETERS.has(k)) return refuse(`Invalid JSON payload received. Unknown name "${k}" at 'parameters': Cannot find field.`);
      const count = parameters.sampleCount ?? 4;
      if (typeof count !== 'number' || count < 1 || count > 4) return refuse('sampleCount must be between 1 and 4.');
      if (parameters.aspectRatio !== undefined && !ASPECT_RATIOS.has(String(parameters.aspectRatio))) return refuse(`Unsupported aspect ratio: ${String(parameters.aspectRatio)}`);
      imagenCalls.push({ model: m[1], prompt: b.instances[0].prompt, parameters });
      const blocked = String(b.instances[0].prompt).includes('blocked');
      const predictions = Array.from({ length: count }, () =>
        blocked ? { raiFilteredReason: 'Your current safety filter threshold filtered out the generated image.' } : { bytesBase64Encoded: IMAGEN_PNG.toString('base64'), mimeType: 'image/png' },
      );
      return { status: 200, json: { predictions } };
    }
    // AI Studio
    if ((m = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(path)) && method === 'POST') {
      if (!key) return googleError(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
      const checked = checkBody(body, false, m[1]);
      if ('status' in checked) return checked;
      const id = `op${(next += 1)}`;
      jobs.set(id, { id, model: m[1], vertex: false, ...checked, polls: 0 });
      return { status: 200, json: { name: `models/${m[1]}/operations/${id}` } };
    }
    if ((m = /^\/v1beta\/models\/([^/:]+)\/operations\/([^/:?]+)$/.exec(path)) && method === 'GET') {
      if (!key) return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      const job = jobs.get(m[2]);
      if (!job || job.model !== m[1]) return googleError(404, 'NOT_FOUND', `Operation ${m[2]} not found.`);
      return { status: 200, json: operation(job, `models/${m[1]}/operations/${m[2]}`) };
    }
    if ((m = /^\/v1beta\/files\/([^/:]+):download\?alt=media$/.exec(path)) && method === 'GET') {
      if (!key) return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      if (!jobs.has(m[1])) return googleError(404, 'NOT_FOUND', 'File not found.');
      return { status: 302, headers: { location: `${url}/signed/${m[1]}.mp4?sig=abc123` } };
    }
    if ((m = /^\/signed\/([^/.]+)\.mp4\?sig=abc123$/.exec(path)) && method === 'GET') {
      if (headers['x-goog-api-key'] !== undefined || headers.authorization !== undefined) rejections.push(`a credential was sent to the signed URL ${path}`);
      return { status: 200, body: VEO_MP4, headers: { 'content-type': 'video/mp4' } };
    }
    // Vertex AI
    const vertexBase = `/v1/projects/${project}/locations/${location}/publishers/google/models/`;
    if (path.startsWith('/v1/') || path.startsWith('/download/')) {
      if (!bearer) return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    }
    if ((m = /^([^/:]+):predictLongRunning$/.exec(path.startsWith(vertexBase) ? path.slice(vertexBase.length) : '')) && method === 'POST') {
      const checked = checkBody(body, true, m[1]);
      if ('status' in checked) return checked;
      const id = `vop${(next += 1)}`;
      jobs.set(id, { id, model: m[1], vertex: true, ...checked, polls: 0 });
      return { status: 200, json: { name: `projects/${project}/locations/${location}/publishers/google/models/${m[1]}/operations/${id}` } };
    }
    if ((m = /^([^/:]+):fetchPredictOperation$/.exec(path.startsWith(vertexBase) ? path.slice(vertexBase.length) : '')) && method === 'POST') {
      const b = (body ?? {}) as Record<string, unknown>;
      for (const k of Object.keys(b)) if (k !== 'operationName') return refuse(`Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
      const name = String(b.operationName ?? '');
      const id = /\/operations\/([^/]+)$/.exec(name)?.[1] ?? '';
      const job = jobs.get(id);
      if (!job || !name.startsWith(`projects/${project}/locations/${location}/publishers/google/models/${m[1]}/operations/`)) return googleError(404, 'NOT_FOUND', `Operation ${name} not found.`);
      return { status: 200, json: operation(job, name) };
    }
    if ((m = /^\/download\/storage\/v1\/b\/([^/]+)\/o\/([^/?]+)\?alt=media$/.exec(path)) && method === 'GET') {
      const object = decodeURIComponent(m[2]);
      const id = object.split('/').at(-2) ?? '';
      if (!jobs.has(id)) return googleError(404, 'NOT_FOUND', 'No such object.');
      return { status: 200, body: VEO_MP4, headers: { 'content-type': 'video/mp4' } };
    }
    return googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
      }
      const reply = handle(req.method ?? 'GET', req.url ?? '/', req.headers, body);
      if (reply.json !== undefined) {
        res.writeHead(reply.status, { 'content-type': 'application/json; charset=UTF-8', ...reply.headers });
        res.end(JSON.stringify(reply.json));
      } else {
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiKey,
    token,
    project,
    location,
    jobs,
    requests,
    rejections,
    imagenCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
