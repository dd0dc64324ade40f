import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePng } from '../../plugins/mock/png.ts';
import { encodeWav } from '../../plugins/mock/wav.ts';

/** One request the fake received, with multipart parts decoded. */
export interface MediaRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  json?: Record<string, unknown>;
  fields: Record<string, string[]>;
  files: Record<string, { filename: string; type: string; bytes: Buffer }>;
}

export type MediaReply = { status?: number; headers?: Record<string, string>; body: string | Buffer } | undefined;

/** A fake OpenAI-compatible media upstream on 127.0.0.1; `override` may script any reply. */
export interface FakeMediaUpstream {
  url: string;
  requests: MediaRequest[];
  override: ((request: MediaRequest) => MediaReply) | undefined;
  close(): Promise<void>;
}

function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([...rgb, 255], i * 4);
  return encodePng({ width, height, rgba });
}

const json = (body: unknown, status = 200): MediaReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function sizeOf(value: unknown): [number, number] {
  const match = /^(\d+)x(\d+)$/.exec(String(value ?? ''));
  return match ? [Number(match[1]), Number(match[2])] : [16, 16];
}

/** What a real OpenAI answers, in shape: b64 PNGs, WAV speech, json/verbose_json transcripts. */
function defaultReply(request: MediaRequest, baseUrl: string): MediaReply {
  const field = (name: string) => request.json?.[name] ?? request.fields[name]?.[0];
  if (request.path === '/v1/images/generations' || request.path === '/v1/images/edits') {
    const [w, h] = sizeOf(field('size'));
    const n = Number(field('n') ?? 1);
    const png = solidPng(w, h, request.path.endsWith('edits') ? [0, 0, 255] : [255, 0, 0]);
    const asUrl = String(field('prompt')).includes('[url]');
    const data = Array.from({ length: n }, () =>
      asUrl ? { url: `${baseUrl}/files/img.png?sig=abc` } : { b64_json: png.toString('base64'), revised_prompt: `revised: ${String(field('prompt'))}` },
    );
    return json({ created: 1_700_000_000, data, usage: { input_tokens: 11, output_tokens: 22, total_tokens: 33 } });
  }
  if (request.path.startsWith('/files/img.png')) return { headers: { 'content-type': 'image/png' }, body: solidPng(5, 7, [0, 255, 0]) };
  if (request.path === '/v1/audio/speech') {
    return { headers: { 'content-type': 'audio/wav' }, body: encodeWav(Buffer.alloc(4800), 24_000, String(field('input'))) };
  }
  if (request.path === '/v1/audio/transcriptions' || request.path === '/v1/audio/translations') {
    const text = request.path.endsWith('translations') ? 'Hello from the translation.' : 'Bonjour tout le monde. Second sentence.';
    if (field('response_format') !== 'verbose_json') return json({ text, usage: { type: 'duration', seconds: 4 } });
    return json({
      task: request.path.endsWith('translations') ? 'translate' : 'transcribe',
      language: 'french',
      duration: 3.5,
      text,
      segments: [
        { id: 0, seek: 0, start: 0, end: 1.5, text: ' Bonjour tout le monde.', tokens: [1], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 },
        { id: 1, seek: 0, start: 1.5, end: 3.5, text: ' Second sentence.', tokens: [2], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 },
      ],
      words: [{ word: 'Bonjour', start: 0, end: 0.4 }],
    });
  }
  return json({ error: { message: `no route ${request.path}`, type: 'invalid_request_error' } }, 404);
}

async function decode(req: http.IncomingMessage, raw: Buffer): Promise<Pick<MediaRequest, 'json' | 'fields' | 'files'>> {
  const type = req.headers['content-type'] ?? '';
  const fields: Record<string, string[]> = {};
  const files: MediaRequest['files'] = {};
  if (type.startsWith('application/json')) return { json: JSON.parse(raw.toString('utf8')) as Record<string, unknown>, fields, files };
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') (fields[name] ??= []).push(value);
      else files[name] = { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return { fields, files };
}

export async function startFakeMediaUpstream(): Promise<FakeMediaUpstream> {
  const fake: FakeMediaUpstream = { url: '', requests: [], override: undefined, close: async () => undefined };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request: MediaRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, ...(await decode(req, Buffer.concat(chunks))) };
    fake.requests.push(request);
    const reply = fake.override?.(request) ?? defaultReply(request, fake.url);
    res.writeHead(reply?.status ?? 200, reply?.headers ?? {});
    res.end(reply?.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
