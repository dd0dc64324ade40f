import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A job the fake holds: it moves one state further on each poll. */
interface FakeVideo {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  polls: number;
  deleted: boolean;
}

/**
 * A fake upstream speaking OpenAI's `/v1/videos` exactly: multipart create, states that move
 * over polls (queued → in_progress 50% → completed, or failed for prompts with "fail"), content
 * (`variant` video or thumbnail) served only with the right key, delete. Every request is kept.
 */
export interface FakeVideosUpstream {
  url: string;
  key: string;
  requests: Array<{ method: string; path: string; authorized: boolean }>;
  videos: Map<string, FakeVideo>;
  close(): Promise<void>;
}

export const FAKE_MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64, 7)]);
export const FAKE_JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 1)]);

function view(v: FakeVideo) {
  const status = v.prompt.includes('fail') && v.polls >= 2 ? 'failed' : v.polls === 0 ? 'queued' : v.polls === 1 ? 'in_progress' : 'completed';
  return {
    id: v.id, object: 'video', status, progress: status === 'in_progress' ? 50 : status === 'completed' ? 100 : 0, model: v.model, prompt: v.prompt,
    seconds: v.seconds, size: v.size, created_at: 1_800_000_000, completed_at: status === 'completed' ? 1_800_000_100 : null, expires_at: null,
    error: status === 'failed' ? { code: 'moderation_blocked', message: 'The prompt was blocked.' } : null, remixed_from_video_id: null,
  };
}

export async function startFakeVideosUpstream(key = 'sk-upstream-videos'): Promise<FakeVideosUpstream> {
  const videos = new Map<string, FakeVideo>();
  const requests: FakeVideosUpstream['requests'] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)));
  });
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const url = new URL(req.url ?? '/', 'http://x');
    const authorized = req.headers.authorization === `Bearer ${key}`;
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorized });
    if (!authorized) return send(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    if (req.method === 'POST' && url.pathname === '/v1/videos') {
      if (!/^multipart\/form-data/.test(req.headers['content-type'] ?? '')) return send(res, 400, { error: { message: 'expected multipart' } });
      const form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': req.headers['content-type']! } }).formData();
      const v: FakeVideo = {
        id: `video_fake${++next}`, model: String(form.get('model')), prompt: String(form.get('prompt')), seconds: String(form.get('seconds') ?? '4'),
        size: String(form.get('size') ?? '720x1280'), polls: -1, deleted: false,
      };
      videos.set(v.id, v);
      v.polls = 0;
      return send(res, 200, view(v));
    }
    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url.pathname);
    const v = m ? videos.get(m[1]) : undefined;
    if (!m || !v || v.deleted) return send(res, 404, { error: { message: 'Video not found', type: 'invalid_request_error' } });
    if (req.method === 'DELETE') {
      v.deleted = true;
      return send(res, 200, { id: v.id, object: 'video.deleted', deleted: true });
    }
    if (m[2]) {
      if (view(v).status !== 'completed') return send(res, 400, { error: { message: 'Video is not ready yet' } });
      const thumb = url.searchParams.get('variant') === 'thumbnail';
      res.writeHead(200, { 'content-type': thumb ? 'image/jpeg' : 'video/mp4' });
      return res.end(thumb ? FAKE_JPEG : FAKE_MP4);
    }
    v.polls += 1;
    return send(res, 200, view(v));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    requests,
    videos,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A webhook receiver on 127.0.0.1: keeps every delivery; `refuseFirst` answers the first N with 500. */
export async function startWebhookReceiver(refuseFirst = 0): Promise<{ url: string; deliveries: Array<{ headers: http.IncomingHttpHeaders; body: string; answered: number }>; close(): Promise<void> }> {
  const deliveries: Array<{ headers: http.IncomingHttpHeaders; body: string; answered: number }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = deliveries.length < refuseFirst ? 500 : 204;
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
